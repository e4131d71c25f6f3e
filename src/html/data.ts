import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { caseFileCandidates, loadCases } from "../cases/load.js";
import { safeStem, sampleStem } from "../checks/stem.js";
import { pairwiseReportSchema } from "../pairwise/report.js";
import { lastCodePoints } from "../process/tail.js";
import { notRunLine } from "../render/not-run.js";
import { judgeNoiseText } from "../render/stats-text.js";
import { coverageOf, isIncomplete } from "../report/coverage.js";
import { parseManifest, summarizeManifest } from "../report/manifest.js";
import { readRows, rowsFile } from "../report/read-rows.js";
import { head } from "../report/reason.js";
import type { Manifest, StoredRow } from "../report/record.js";
import { RowTally } from "../report/row-tally.js";
import { type SummaryOptions, summarize } from "../report/run-summary.js";
import type {
  Capped,
  ItemView,
  Link,
  ManifestView,
  Mark,
  Message,
  PairwiseView,
  RunView,
  SampleView,
} from "./model.js";

/** Characters kept of each embedded answer, stream or prompt; the rest is in the run folder. */
export const CAP = 4000;

/** The manifest line is padded, and never this long (RowWriter's room is a few hundred bytes). */
const MANIFEST_BYTES = 1 << 20;

/** What a check's sample wrote in `checks/<stem>.json`, as far as the page shows it. */
const checkFileSchema = z.looseObject({
  description: z.string().catch(""),
  source_path: z.string().catch(""),
  stdout: z.string().catch(""),
  stderr: z.string().catch(""),
});

export interface RunViewOptions extends SummaryOptions {
  /** The folder the page is written to: links to the run's files are relative to it. */
  pageDir: string;
}

/**
 * A run (folder or rows file) as the page shows it, from what the run folder holds: the rows and
 * their manifest, the checks' files, and a case run's case file when it is unchanged.
 */
export async function runView(location: string, options: RunViewOptions): Promise<RunView> {
  const file = await rowsFile(location);
  const runDir = path.dirname(file);
  const [rows, manifestValue] = await Promise.all([readRows(file), firstLineManifest(file)]);
  const manifest = parseManifest(manifestValue);
  const tally = new RowTally();
  for (const row of rows) tally.add(row);
  const { judge_model, planned } = summarizeManifest(manifestValue);
  const summary = summarize(tally, { ...options, judgeModel: options.judgeModel ?? judge_model });
  const coverage =
    planned === null ? null : coverageOf(planned.items, planned.samplesPerItem, summary.stats);
  const href = hrefFrom(options.pageDir, runDir);
  const messages = await caseMessages(manifest);
  const kind = manifest?.kind ?? null;
  const samplesOf = groupRows(rows);
  const items: ItemView[] = [];
  // One item at a time: a check's files are opened in turn, never thousands at once.
  for (const item of tally.items.values()) {
    const samples = samplesOf.get(item.id) ?? [];
    const check =
      kind === "checks" ? await checkFiles(runDir, href, item.id, samples, manifest) : null;
    items.push({
      id: item.id,
      stratum: item.stratum,
      tags: item.tags,
      passed: item.sum,
      n: item.n,
      errors: item.errors,
      cached: item.cached,
      problem: item.problem,
      description: check?.description ?? null,
      source: check?.source ?? null,
      messages: messages.byId?.get(item.id) ?? null,
      samples: check?.samples ?? samples.map((row) => sampleView(row, {})),
    });
  }
  const costs = [...summary.tokens.target, ...(summary.tokens.judge ? [summary.tokens.judge] : [])]
    .map((t) => t.cost)
    .filter((cost) => cost !== null);
  return {
    kind,
    location,
    manifest: manifest && manifestView(manifest),
    stats: summary.stats,
    notRun: isIncomplete(coverage, summary.stats) ? notRunLine(coverage, summary.stats) : null,
    breakdown: summary.breakdown,
    latency: summary.latency,
    cost: costs.length === 0 ? null : costs.reduce((a, b) => a + b, 0),
    graders: summary.graders,
    judges: summary.judges.map((j) => `judge ${j.grader}: ${judgeNoiseText(j)}`),
    messagesNote: kind === "cases" ? messages.note : null,
    pairwise: kind === "pairwise" ? await pairwiseView(runDir) : null,
    items,
  };
}

function groupRows(rows: readonly StoredRow[]): Map<string, StoredRow[]> {
  const byId = new Map<string, StoredRow[]>();
  for (const row of rows) {
    const list = byId.get(row.id);
    if (list) list.push(row);
    else byId.set(row.id, [row]);
  }
  for (const list of byId.values()) list.sort((a, b) => (a.sample ?? 0) - (b.sample ?? 0));
  return byId;
}

interface SampleFiles {
  stdout?: Capped | null;
  stderr?: Capped | null;
  prompt?: Capped | null;
  links?: Link[];
}

function sampleView(row: StoredRow, files: SampleFiles): SampleView {
  const reasons = row.reasons ?? {};
  const reason = typeof row.reason === "string" ? row.reason : null;
  const entries = Object.entries(row.marks ?? {});
  // A check has one grader (its type) and says why in the row's reason.
  const only = entries.length === 1 ? reason : null;
  const marks: Mark[] = entries.map(([grader, passed]) => ({
    grader,
    passed,
    reason: typeof reasons[grader] === "string" ? reasons[grader] : passed ? null : only,
  }));
  const { text } = row as { text?: unknown };
  return {
    sample: row.sample ?? 0,
    status: row.status ?? (row.error ? "error" : row.score >= 1 ? "passed" : "failed"),
    ms: typeof row.ms === "number" ? row.ms : null,
    cached: row.cached === true,
    marks,
    reason,
    error: typeof row.error === "string" ? row.error : null,
    answer: typeof text === "string" ? cap(text, "head", null) : null,
    stdout: files.stdout ?? null,
    stderr: files.stderr ?? null,
    prompt: files.prompt ?? null,
    links: files.links ?? [],
  };
}

/** A check's description, YAML and per-sample streams, from `checks/<stem>.*`. */
async function checkFiles(
  runDir: string,
  href: (relative: string) => string,
  id: string,
  rows: readonly StoredRow[],
  manifest: Manifest | null,
): Promise<{ description: string | null; source: string | null; samples: SampleView[] }> {
  const samplesPerItem = manifest?.kind === "checks" ? manifest.samples : 1;
  let description: string | null = null;
  let source: string | null = null;
  const samples: SampleView[] = [];
  for (const row of rows) {
    const stem = sampleStem(safeStem(id), row.sample ?? 0, samplesPerItem);
    const relative = (suffix: string) => `checks/${stem}${suffix}`;
    const json = checkFileSchema.safeParse(
      await readFile(path.join(runDir, relative(".json")), "utf8").then(JSON.parse, () => null),
    );
    const file = json.success ? json.data : null;
    description ??= file?.description || null;
    if (file?.source_path && manifest) {
      source ??= path.relative(manifest.project_root, file.source_path).split(path.sep).join("/");
    }
    const stream = async (name: string, fallback: string | undefined) => {
      const tail = await fileTail(
        path.join(runDir, relative(`.${name}.txt`)),
        href(relative(`.${name}.txt`)),
      );
      return tail ?? (fallback ? cap(fallback, "tail", null) : null);
    };
    const [stdout, stderr, prompt] = await Promise.all([
      stream("stdout", file?.stdout),
      stream("stderr", file?.stderr),
      fileHead(path.join(runDir, relative(".prompt.txt")), href(relative(".prompt.txt"))),
    ]);
    const links = file ? [{ label: "result (JSON)", href: href(relative(".json")) }] : [];
    samples.push(sampleView(row, { stdout, stderr, prompt, links }));
  }
  return { description, source, samples };
}

/** The case file's messages by id, or why they are not shown. */
async function caseMessages(
  manifest: Manifest | null,
): Promise<{ byId: Map<string, Message[]> | null; note: string | null }> {
  if (manifest?.kind !== "cases") return { byId: null, note: null };
  let changed = false;
  for (const file of caseFileCandidates(manifest.cases_file, manifest.project_root)) {
    const loaded = await loadCases(file).catch(() => null);
    if (loaded === null) continue;
    if (loaded.sha256 !== manifest.cases_sha256) {
      changed = true;
      continue;
    }
    const byId = new Map(loaded.cases.map((c) => [c.id, c.messages.map((m) => ({ ...m }))]));
    return { byId, note: null };
  }
  const why = changed ? "has changed since the run (its sha256 differs)" : "cannot be read";
  return { byId: null, note: `Messages unavailable: ${manifest.cases_file} ${why}.` };
}

function manifestView(m: Manifest): ManifestView {
  const target =
    m.kind === "cases" ? (m.target.kind === "model" ? m.target.model : m.target.command) : null;
  return {
    version: m.version,
    runId: m.run_id,
    gitCommit: m.git_commit,
    startedAt: m.started_at,
    endedAt: m.ended_at,
    interrupted: m.interrupted,
    command: m.command === null ? null : ["eb", ...m.command].join(" "),
    target,
    definitions: Object.entries(m.definitions),
  };
}

async function firstLineManifest(file: string): Promise<unknown> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(MANIFEST_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MANIFEST_BYTES, 0);
    const text = buffer.subarray(0, bytesRead).toString("utf8");
    const line = text.slice(0, text.indexOf("\n") >>> 0);
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === "object" && parsed !== null && "manifest" in parsed
      ? parsed.manifest
      : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** `relative` (a path inside the run folder) as a URL relative to the page's folder. */
function hrefFrom(pageDir: string, runDir: string): (relative: string) => string {
  const base = path.relative(pageDir, runDir).split(path.sep).filter(Boolean);
  return (relative) => [...base, ...relative.split("/")].map(encodeURIComponent).join("/");
}

const KEEP = {
  head: (text: string) => head(text, CAP),
  tail: (text: string) => lastCodePoints(text, CAP),
};

/** `text` cut to CAP characters at the end that matters: an answer's head, a stream's tail. */
function cap(text: string, end: "head" | "tail", href: string | null): Capped {
  const cut = text.length > CAP;
  return {
    text: cut ? KEEP[end](text) : text,
    total: text.length,
    unit: "characters",
    kept: cut ? end : null,
    href,
  };
}

/** The last CAP characters of a file (it may be megabytes: only its end is read). */
async function fileTail(file: string, href: string): Promise<Capped | null> {
  const size = await stat(file).then(
    (s) => s.size,
    () => null,
  );
  if (size === null || size === 0) return null;
  const bytes = Math.min(size, CAP * 4);
  const text = await readRange(file, size - bytes, bytes);
  const kept = lastCodePoints(text.replace(/^[\uFFFD]+/, ""), CAP);
  const whole = bytes === size && kept.length === text.length;
  return { text: kept, total: size, unit: "bytes", kept: whole ? null : "tail", href };
}

async function fileHead(file: string, href: string): Promise<Capped | null> {
  const size = await stat(file).then(
    (s) => s.size,
    () => null,
  );
  if (size === null || size === 0) return null;
  const text = await readRange(file, 0, Math.min(size, CAP * 4));
  const capped = cap(text, "head", href);
  const whole = size <= CAP * 4 && capped.kept === null;
  return { ...capped, total: size, unit: "bytes", kept: whole ? null : "head" };
}

async function readRange(file: string, position: number, length: number): Promise<string> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** A pairwise run's figures from its report.json; null when there is none to trust. */
async function pairwiseView(runDir: string): Promise<PairwiseView | null> {
  const value: unknown = await readFile(path.join(runDir, "report.json"), "utf8")
    .then(JSON.parse)
    .catch(() => null);
  const parsed = pairwiseReportSchema.safeParse(value);
  if (!parsed.success) return null;
  const r = parsed.data;
  const { wins, ties, losses, inconsistent, errors, pairs, items, level, margin, verdict } = r;
  return {
    ...{ wins, ties, losses, inconsistent, errors, pairs, items, level, margin, verdict },
    net_win_rate: r.net_win_rate,
    ci_low: r.ci_low,
    ci_high: r.ci_high,
    consistency: r.consistency,
    position_bias: r.position_bias,
    judge_model: r.judge_model,
    strata: r.strata,
  };
}
