import type { RunDocument, RunProvenance } from "../report/document.js";
import type { ClosingOf, RowOf, RunKind, SettingsOf, StoredRow } from "../report/record.js";
import type { RowTally, TallyOptions } from "../report/row-tally.js";
import type { Scrubber } from "../secrets/scrubber.js";
import type { ShardFields } from "./shard.js";

/** An item of a suite: a check or a case. */
export interface SuiteItem {
  readonly id: string;
}

/** Where one sample runs. */
export interface SampleContext {
  runDir: string;
  signal: AbortSignal;
  /** Unique among the samples of this attempt (a name for a scratch folder). */
  index: number;
}

/** What a run of a suite ends with, for its reports. */
export interface FinishContext {
  runId: string;
  runDir: string;
  startedAt: Date;
  completedAt: Date;
  interrupted: boolean;
  /** Every row of the run, earlier attempts' included, aggregated per item. */
  tally: RowTally;
  provenance: RunProvenance;
}

export interface Finished<K extends RunKind, R> {
  /** Written as report.json. */
  report: R;
  /** The run document every output renders, secrets scrubbed (for a case run: `report`'s). */
  document: RunDocument;
  /** The run folder's other reports (report.md, report.html), rendered by the front door. */
  files: readonly { name: string; text: string }[];
  /** The gate: threshold met and no error sample. */
  passed: boolean;
  /** Manifest fields known only now (they must fit in `manifestRoom`). */
  closing: ClosingOf<K>;
  /** Worth telling the user, not a reason to fail (e.g. cache writes that failed). */
  warnings: string[];
}

/**
 * One front door's items and how to run one sample of them; `runSuite` does everything else
 * (run folder, manifest, scheduling, rows, interrupts, resume, exit code) the same for all.
 */
export interface Suite<K extends RunKind, I extends SuiteItem, R> {
  kind: K;
  projectRoot: string;
  items: readonly I[];
  /** Samples per item (k). */
  samples: number;
  /** Samples in flight at once. */
  workers: number;
  /**
   * `item`: an item's samples run one after another in one lane (cases: a case's samples stay
   * together, as in the article); `sample`: every sample is scheduled on its own (checks).
   */
  schedule: "item" | "sample";
  /** The manifest fields of this kind: the settings that change results. */
  settings: SettingsOf<K>;
  /** Which suite this is (see suite-name.ts): `eb eval cases.jsonl`, `eb run --tag smoke`. */
  name: string;
  /** Digest of every definition, by item id or file (a shard's: of the whole suite). */
  definitions: Record<string, string>;
  /** Which shard of the suite `items` are (`--shard I/N`); absent or null: all of it. */
  shard?: ShardFields | null;
  /** The command line as recorded (secrets removed), or null. */
  command: string[] | null;
  /** Bytes kept free on the manifest line for `Finished.closing`. */
  manifestRoom: number;
  /** Applied to every row and report before it is written (the suite scrubs its own files). */
  scrubber: Scrubber;
  /** A sample's output for the report when its row holds none (a check's, in its files). */
  output?: TallyOptions["output"];
  /** Prepares the run folder before any sample runs. */
  open(runDir: string): Promise<void>;
  /** Takes back a row written by an earlier attempt of this run (`--resume`). */
  restore(row: StoredRow, runDir: string): Promise<void>;
  /**
   * Adaptive sampling (`eb eval --sequential`): the next sample to run, or null when the run is
   * done; when given, it replaces the fixed items × samples grid, and `workers` lanes each draw
   * from it until it says null. `samples` is then the cap per item on average (the progress
   * line's total). It must settle (null) once `signal` is aborted.
   */
  draw?(signal: AbortSignal): Promise<{ item: I; sample: number } | null>;
  /** One sample; null when an interrupt cut it short (it is then not a result). */
  runSample(item: I, sample: number, context: SampleContext): Promise<RowOf<K> | null>;
  finish(context: FinishContext): Promise<Finished<K, R>>;
  /** Releases what `open` took, whatever happened. */
  close(): Promise<void>;
}

/** Where a run stands, after each sample; the counts include earlier attempts' rows. */
export interface RunProgress {
  itemsDone: number;
  itemsTotal: number;
  samplesDone: number;
  samplesTotal: number;
  passed: number;
  errors: number;
  cached: number;
  /** Of the counts above, what earlier attempts of the run (`--resume`) did. */
  earlierSamples: number;
  earlierCached: number;
  /** performance.now() when this attempt started. */
  startedAt: number;
  /** Calls allowed in flight now, per model called (the target's first); absent: not known. */
  limits?: readonly number[];
}
