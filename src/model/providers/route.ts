import { InputError } from "../../errors.js";
import { redactUrl } from "../../secrets/redact.js";
import { PROVIDERS, type Provider, SHARED_KEY_VARIABLE } from "./table.js";

/** Where a model's calls go: a provider's own API, or (null) the OpenAI-compatible endpoint. */
export interface Route {
  provider: Provider | null;
  /** The model's name as its API knows it, the prefix taken off. */
  model: string;
}

/**
 * `anthropic/MODEL` and `google/MODEL` name a provider; `openai/MODEL` and any other name the
 * OpenAI-compatible endpoint (a name with another slash, `meta-llama/...`, as it is).
 */
export function routeOf(model: string): Route {
  const slash = model.indexOf("/");
  const prefix = slash === -1 ? "" : model.slice(0, slash);
  if (prefix === "openai") return { provider: null, model: model.slice(slash + 1) };
  const provider = PROVIDERS.find((p) => p.name === prefix) ?? null;
  return { provider, model: provider === null ? model : model.slice(slash + 1) };
}

/** The model when the OpenAI-compatible endpoint answers it, else null. */
export function compatibleModel(model: string | null | undefined): string | null {
  return model != null && routeOf(model).provider === null ? model : null;
}

/** The host of the default --api-base: left there, a provider's calls go to its own API. */
const OPENAI_HOST = "api.openai.com";

/** Where a model's calls go: --api-base, unless it was left at OpenAI's and a provider has its own. */
export function baseOf(model: string, apiBase: string): string {
  const { provider } = routeOf(model);
  if (provider === null || new URL(apiBase).hostname !== OPENAI_HOST) return apiBase;
  return provider.defaultBase;
}

/** How a run reaches one provider: its base, the key and where it came from. */
export interface ProviderAccess {
  provider: Provider;
  baseURL: string;
  key: string;
  /** The variable it was read from, or "option" (the library's `apiKey`). */
  from: string;
}

/**
 * The access of each provider the models name (a model of the OpenAI-compatible endpoint needs
 * none here). Throws InputError, naming the variables to set, for one without a key.
 */
export function providerAccess(
  models: readonly (string | null | undefined)[],
  { env, apiKey, apiBase }: { env: NodeJS.ProcessEnv; apiKey: string | undefined; apiBase: string },
): ProviderAccess[] {
  const seen = new Map<string, ProviderAccess>();
  for (const model of models) {
    const provider = model == null ? null : routeOf(model).provider;
    if (model == null || provider === null || seen.has(provider.name)) continue;
    const baseURL = baseOf(model, apiBase);
    if (apiKey) {
      seen.set(provider.name, { provider, baseURL, key: apiKey, from: "option" });
      continue;
    }
    const from = variablesOf(provider).find((name) => env[name]);
    if (from === undefined) throw missingKey(model, provider, baseURL);
    seen.set(provider.name, { provider, baseURL, key: env[from] as string, from });
  }
  return [...seen.values()];
}

function variablesOf(provider: Provider): string[] {
  return [...provider.keyVariables, SHARED_KEY_VARIABLE];
}

function missingKey(model: string, provider: Provider, baseURL: string): InputError {
  return new InputError(
    `no API key for model "${model}" at ${redactUrl(baseURL)}: set ` +
      `${variablesOf(provider).join(" or ")} (the key is read only from the environment, never ` +
      "from a flag or a file); nothing was called",
  );
}

/** What to do when the provider refuses the key: which variable to set. */
export function refusalAdvice({ provider, baseURL, from }: ProviderAccess): string {
  const where = redactUrl(baseURL);
  if (from === "option") return `the API key given was refused by ${where}: pass one it accepts`;
  const first = provider.keyVariables[0] as string;
  const also = from === first ? "" : ` (or ${first}, which is read first)`;
  return `the key in ${from} was refused by ${where}: set ${from}${also} to a key it accepts`;
}

/**
 * `--batch` is the OpenAI Batch API's, and its requests name the model as they are written: a
 * model of another provider, or one written `openai/MODEL`, is refused before anything runs.
 */
export function checkBatchModels(models: readonly (string | null | undefined)[]): void {
  for (const model of models) {
    if (model == null) continue;
    const route = routeOf(model);
    if (route.provider !== null) {
      throw new InputError(
        `--batch sends calls through the OpenAI Batch API, and "${model}" is not called through ` +
          "the OpenAI-compatible endpoint: drop --batch; nothing was called",
      );
    }
    if (route.model !== model) {
      throw new InputError(
        `--batch names the model as the endpoint knows it: pass "${route.model}", not "${model}"; nothing was called`,
      );
    }
  }
}
