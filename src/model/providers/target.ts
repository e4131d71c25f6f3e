import type { Cache } from "../cache.js";
import {
  type ChatRequest,
  type ChatTarget,
  type ChatTargetOptions,
  cachedAnswer,
  createChatTarget,
  type Wire,
} from "../chat.js";
import { AccessRefusedError } from "../refused.js";
import type { ChatResult } from "../types.js";
import { unwrapped } from "./failure.js";
import { baseOf, type ProviderAccess, refusalAdvice, routeOf } from "./route.js";
import type { Send } from "./table.js";

export interface RoutedTargetOptions extends Omit<ChatTargetOptions, "wire" | "timeoutMs"> {
  timeoutMs: number;
  /** The providers the run calls (see providerAccess); `baseURL` and `apiKey` are the endpoint's. */
  providers: readonly ProviderAccess[];
}

/**
 * Chat calls, each to where its model's name says (route.ts): a provider's API through its
 * client, or the OpenAI-compatible endpoint. Each goes through a chat target of its own, so the
 * cache, retries, limiter and error texts are the same on all of them.
 */
export function createRoutedTarget(options: RoutedTargetOptions): ChatTarget {
  const { providers, ...endpoint } = options;
  const compatible = createChatTarget(endpoint);
  const natives = new Map(
    providers.map((access) => [access.provider.name, native(access, endpoint)]),
  );
  return {
    complete(request, sample, signal) {
      const call = placed(request, endpoint.baseURL);
      const target = call.provider === null ? compatible : natives.get(call.provider.name);
      if (target === undefined) {
        return Promise.reject(new Error(`model "${request.model}": its provider was not planned`));
      }
      return target.complete(call.request, sample, signal);
    },
  };
}

/** The answer the routed target would take from the cache for this request, without calling. */
export function routedCachedAnswer(
  cache: Cache,
  apiBase: string,
  request: ChatRequest,
  sample: number,
): Promise<ChatResult | null> {
  const call = placed(request, apiBase);
  return cachedAnswer(cache, call.baseURL, call.request, sample);
}

/**
 * A request as its target takes it: to the OpenAI-compatible endpoint without `openai/`; to a
 * provider with its full name (so the cache key names the provider) and its default max_tokens.
 */
function placed(request: ChatRequest, apiBase: string) {
  const { provider, model } = routeOf(request.model);
  if (provider === null) {
    return {
      provider,
      baseURL: apiBase,
      request: model === request.model ? request : { ...request, model },
    };
  }
  const maxTokens = request.maxTokens ?? provider.defaultMaxTokens;
  const full =
    maxTokens === null || maxTokens === request.maxTokens ? request : { ...request, maxTokens };
  return { provider, baseURL: baseOf(request.model, apiBase), request: full };
}

/** A provider's chat target; a refused key says which of the provider's variables to set. */
function native(
  access: ProviderAccess,
  endpoint: Omit<RoutedTargetOptions, "providers">,
): ChatTarget {
  const target = createChatTarget({
    ...endpoint,
    baseURL: access.baseURL,
    apiKey: access.key,
    wire: wireOf(access, endpoint),
  });
  const advice = refusalAdvice(access);
  return {
    complete: (request, sample, signal) =>
      target.complete(request, sample, signal).catch((error: unknown) => {
        if (!(error instanceof AccessRefusedError)) throw error;
        throw new AccessRefusedError(error.message, error.status, advice);
      }),
  };
}

/** The provider's call, its client loaded at the first one: a cached run loads none. */
function wireOf(access: ProviderAccess, endpoint: Omit<RoutedTargetOptions, "providers">): Wire {
  const { provider } = access;
  let send: Promise<Send> | undefined;
  const client = () => {
    send ??= provider.send().then((make) =>
      make({
        baseURL: access.baseURL,
        apiKey: access.key,
        timeoutMs: endpoint.timeoutMs,
        maxResponseBytes: endpoint.maxResponseBytes,
      }),
    );
    return send;
  };
  return {
    async send(request, signal) {
      const call = await client();
      try {
        return await call(request, routeOf(request.model).model, signal);
      } catch (error) {
        throw unwrapped(error);
      }
    },
    read: provider.read,
  };
}
