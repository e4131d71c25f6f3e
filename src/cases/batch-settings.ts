import type { BatchStatus } from "../model/batch.js";

/** The run folder's records of its batches, one per round: written before the first poll. */
export const BATCHES_FILE = "batches.json";
export const JUDGE_BATCHES_FILE = "judge-batches.json";

/** A batch run sends the target calls first, then the judge calls their answers lead to. */
export type BatchRound = "target" | "judge";

export interface RoundStatus extends BatchStatus {
  round: BatchRound;
}

/** `--batch`: how to reach the Batch API and how often to ask it. */
export interface BatchSettings {
  apiKey: string | null;
  pollMs: number;
  onStatus?: ((status: RoundStatus) => void) | undefined;
}
