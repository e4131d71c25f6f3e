import type { BatchStatus } from "../model/batch.js";

/** The run folder's record of its batches: written before the first poll. */
export const BATCHES_FILE = "batches.json";

/** `--batch`: how to reach the Batch API and how often to ask it. */
export interface BatchSettings {
  apiKey: string | null;
  pollMs: number;
  onStatus?: ((status: BatchStatus) => void) | undefined;
}
