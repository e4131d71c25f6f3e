import { GoogleGenAI } from "@google/genai";
import { transportFetch } from "./fetch.js";
import { googleParameters } from "./google-format.js";
import type { Send, WireOptions } from "./table.js";

/**
 * generateContent through Google's client, on the Gemini API (never Vertex, whatever the
 * environment says), over eb's transport, with none of its own retries: eb's decide.
 */
export function googleSend(options: WireOptions): Send {
  const client = withoutWarnings(
    () =>
      new GoogleGenAI({
        vertexai: false,
        apiKey: options.apiKey,
        apiVersion: API_VERSION,
        httpOptions: {
          baseUrl: options.baseURL,
          apiVersion: API_VERSION,
          fetch: transportFetch(options),
        },
      }),
  );
  return (request, model, signal) => {
    const parameters = googleParameters(request, model);
    return client.models.generateContent({
      ...parameters,
      config: { ...parameters.config, ...(signal === undefined ? {} : { abortSignal: signal }) },
    });
  };
}

/** The Gemini API's version its client uses by default, pinned against GOOGLE_GENAI_API_VERSION. */
const API_VERSION = "v1beta";

/**
 * The client's constructor reads the environment's keys even when given one, and warns on stderr
 * that it uses GOOGLE_API_KEY when GEMINI_API_KEY is set too: not so here (eb reads
 * GEMINI_API_KEY first, and passes the key). It runs synchronously, so nothing else's warning
 * falls in between.
 */
function withoutWarnings<T>(make: () => T): T {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return make();
  } finally {
    console.warn = warn;
  }
}
