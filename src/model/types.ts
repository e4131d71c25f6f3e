/** One chat message, as a case file writes it. */
export interface Message {
  role: "system" | "user" | "assistant" | "developer";
  content: string;
}

export const MESSAGE_ROLES = ["system", "user", "assistant", "developer"] as const;

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

/** What a target produced for one sample. */
export interface ChatResult {
  text: string;
  /** The model name the endpoint returned (a version string), or the command line. */
  model: string;
  usage: Usage;
  /** Latency of the call that produced it; on a cache hit, the original call's. */
  ms: number;
  cached: boolean;
  systemFingerprint?: string;
}

/** What a case target receives: the case minus its graders. */
export interface CaseInput {
  id: string;
  stratum: string;
  messages: readonly Message[];
}

/** Produces the output a case grades: a model behind an endpoint, or a command. */
export interface CaseTarget {
  /**
   * Once `signal` aborts, the call is cancelled (a request closed, a command's process group
   * killed) and this rejects with an error saying it was interrupted.
   */
  complete(input: CaseInput, sample: number, signal?: AbortSignal): Promise<ChatResult>;
}
