import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import OpenAI, { toFile } from "openai";
import { z } from "zod";
import { EXIT, RunStoppedError } from "../errors.js";
import { parseJsonOrNull } from "../report/json.js";
import { redactUrl } from "../secrets/redact.js";
import { type StreamedLine, streamedLines } from "./batch-lines.js";
import { tooLargeText } from "./response-limit.js";

/** One request of a batch: its body as a direct call would send it. */
export interface BatchLine {
  customId: string;
  body: object;
}

/** What came back for one request: the completion body, or why there is none. */
export type BatchOutcome = { ok: true; body: unknown } | { ok: false; error: string };

/** How the batches ended: `missing` says why a request no file answered has no answer. */
export interface BatchResult {
  missing: string;
}

/** Where a batch stands, at each poll. */
export interface BatchStatus {
  id: string;
  status: string;
  completed: number;
  failed: number;
  total: number;
}

export interface BatchOptions {
  baseURL: string;
  apiKey: string | null;
  /** The run folder's record of the batches submitted (batches.json). */
  stateFile: string;
  pollMs: number;
  signal: AbortSignal;
  onStatus?: ((status: BatchStatus) => void) | undefined;
  /** Applied to what the API sends back before it is written or shown (the run's scrubber). */
  scrub: (text: string) => string;
  /** The largest answer body taken (`[eval] max_response_mb`): a larger one is a failed line. */
  maxResponseBytes: number;
  /**
   * Each line's outcome, as the output files stream in (a later line for the same request
   * overrides an earlier one): the files can be too large to hold, so the caller keeps what it
   * needs of each.
   */
  onOutcome: (customId: string, outcome: BatchOutcome) => Promise<void>;
}

/** OpenAI's limit on the requests of one batch. */
const MAX_LINES = 50_000;
const DONE = new Set(["completed", "failed", "expired", "cancelled"]);

const stateSchema = z.object({ batches: z.array(z.object({ id: z.string() })) });

/**
 * Sends the lines through the Batch API, or (a resumed run) polls the batches its run folder
 * records, and hands every line's outcome to `onOutcome`; null when interrupted while polling.
 * The batch ids are recorded before the first poll, so an interrupted run resumed pays for
 * nothing twice.
 * What the API refuses (an upload, a poll that keeps failing) stops the run: nothing is lost,
 * and --resume polls the same batches again.
 */
export async function runBatch(
  lines: readonly BatchLine[],
  options: BatchOptions,
): Promise<BatchResult | null> {
  const client = batchClient(options);
  const reasons: string[] = [];
  try {
    const ids = recordedBatches(options.stateFile) ?? (await submit(client, lines, options));
    for (const id of ids) {
      const batch = await finished(client, id, options);
      if (batch === null) return null;
      await collect(client, batch, options);
      // A batch that ended early is the likelier reason for a request without an answer.
      if (batch.status === "completed") reasons.push(unansweredReason(batch));
      else reasons.unshift(unansweredReason(batch));
    }
  } catch (error) {
    if (error instanceof RunStoppedError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    const where = `the batch API at ${redactUrl(options.baseURL)}`;
    throw new RunStoppedError(`${where} failed: ${why}`, EXIT.couldNotRun);
  }
  return { missing: reasons.join("; ") };
}

/**
 * Its own client, on the global fetch: eb's chat transport sends text bodies only, and the
 * upload is multipart.
 */
function batchClient(options: BatchOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey ?? "no-key",
    baseURL: options.baseURL,
    maxRetries: 2,
    ...(options.apiKey === null ? { fetch: withoutAuthorization(fetch) } : {}),
  });
}

function recordedBatches(stateFile: string): string[] | null {
  if (!existsSync(stateFile)) return null;
  const parsed = stateSchema.safeParse(JSON.parse(readFileSync(stateFile, "utf8")));
  if (!parsed.success) throw new Error(`${stateFile} is not a record of batches`);
  return parsed.data.batches.map((b) => b.id);
}

async function submit(
  client: OpenAI,
  lines: readonly BatchLine[],
  options: BatchOptions,
): Promise<string[]> {
  const ids: string[] = [];
  for (let at = 0; at < lines.length; at += MAX_LINES) {
    const jsonl = lines
      .slice(at, at + MAX_LINES)
      .map((line) =>
        JSON.stringify({
          custom_id: line.customId,
          method: "POST",
          url: "/v1/chat/completions",
          body: line.body,
        }),
      )
      .join("\n");
    const file = await client.files.create({
      file: await toFile(Buffer.from(`${jsonl}\n`), "eb-batch.jsonl"),
      purpose: "batch",
    });
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    ids.push(batch.id);
    // At once, batch by batch: a run stopped between two submissions still knows the first.
    const state = JSON.stringify({ batches: ids.map((id) => ({ id })) });
    writeAtomically(options.stateFile, `${options.scrub(state)}\n`);
  }
  return ids;
}

function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

type Batch = Awaited<ReturnType<OpenAI["batches"]["retrieve"]>>;

/** Polls until the batch ends; null when interrupted first. */
async function finished(client: OpenAI, id: string, options: BatchOptions): Promise<Batch | null> {
  for (;;) {
    if (options.signal.aborted) return null;
    const batch = await client.batches.retrieve(id, { signal: options.signal }).catch((error) => {
      if (options.signal.aborted) return null;
      throw error;
    });
    if (batch === null) return null;
    const counts = batch.request_counts;
    options.onStatus?.({
      id: options.scrub(id),
      status: options.scrub(batch.status),
      completed: counts?.completed ?? 0,
      failed: counts?.failed ?? 0,
      total: counts?.total ?? 0,
    });
    if (DONE.has(batch.status)) return batch;
    await sleep(options.pollMs, options.signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

const lineSchema = z.object({
  custom_id: z.string(),
  response: z.object({ status_code: z.number(), body: z.unknown() }).nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

/**
 * The bytes a line holds besides its answer's body (ids, status): a line longer than the limit
 * by more is over it, and is not read whole.
 */
const LINE_ROOM = 1_000_000;

/**
 * Every line of the output and error files, read as they stream in; a request with neither gets
 * the batch's reason.
 */
async function collect(client: OpenAI, batch: Batch, options: BatchOptions): Promise<void> {
  const limit = options.maxResponseBytes;
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue;
    const { body } = await client.files.content(fileId);
    if (body === null) continue;
    const chunks: AsyncIterable<Uint8Array> = body;
    for await (const line of streamedLines(chunks, limit + LINE_ROOM)) {
      const answer = answerOf(line, limit);
      if (answer !== null) await options.onOutcome(answer.customId, answer.outcome);
    }
  }
}

/**
 * A line's request and outcome; null for a line that is not one, which leaves its request
 * unanswered (it gets the batch's reason).
 */
function answerOf(
  line: StreamedLine,
  limit: number,
): { customId: string; outcome: BatchOutcome } | null {
  if ("head" in line) {
    const customId = leadingCustomId(line.head);
    const outcome: BatchOutcome = { ok: false, error: `batch: ${tooLargeText(limit)}` };
    return customId === null ? null : { customId, outcome };
  }
  if (line.text.trim() === "") return null;
  const parsed = lineSchema.safeParse(parseJsonOrNull(line.text));
  if (!parsed.success) return null;
  return { customId: parsed.data.custom_id, outcome: outcomeOf(parsed.data, limit) };
}

/** The custom_id at the start of a line too long to parse (the Batch API writes it first). */
function leadingCustomId(head: string): string | null {
  const match = /"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head);
  const id = match ? parseJsonOrNull(match[1] ?? "") : null;
  return typeof id === "string" ? id : null;
}

/** Why a request the batch did not answer has no answer. */
function unansweredReason(batch: Batch): string {
  const why = batch.errors?.data
    ?.map((e) => e.message)
    .filter(Boolean)
    .join("; ");
  const reasons: Record<string, string> = {
    expired: "expired (its 24h window ended) before this request was answered",
    failed: `failed${why ? `: ${why}` : ""}`,
    cancelled: "was cancelled before this request was answered",
  };
  return `batch ${batch.id} ${reasons[batch.status] ?? "returned no answer for this request"}`;
}

/** A line's outcome; an answer over the limit fails as a direct call's does, so none is cached. */
function outcomeOf(line: z.infer<typeof lineSchema>, maxBytes: number): BatchOutcome {
  const { response, error } = line;
  if (response && response.status_code === 200) {
    const bytes = Buffer.byteLength(JSON.stringify(response.body) ?? "");
    if (bytes > maxBytes) return { ok: false, error: `batch: ${tooLargeText(maxBytes)}` };
    return { ok: true, body: response.body };
  }
  if (error?.message)
    return { ok: false, error: `batch: ${error.code ?? "error"}: ${error.message}` };
  const body = z.object({ error: z.object({ message: z.string() }) }).safeParse(response?.body);
  const message = body.success ? `: ${body.data.error.message}` : "";
  return { ok: false, error: `batch: HTTP ${response?.status_code ?? "?"}${message}` };
}

/** A local endpoint that needs no key gets none, not the client's placeholder. */
function withoutAuthorization(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    headers.delete("authorization");
    return fetch(url, { ...init, headers });
  };
}
