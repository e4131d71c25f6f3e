import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { InputError } from "../../src/errors.js";
import { htmlPage } from "../../src/render/html/page.js";
import { buildDocument, type RunDocument } from "../../src/report/document.js";
import type { CheckRow } from "../../src/report/record.js";
import type { RowTally } from "../../src/report/row-tally.js";
import { runSuite } from "../../src/run/run-suite.js";
import type { Suite } from "../../src/run/suite.js";
import { NO_SECRETS } from "../../src/secrets/scrubber.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Item {
  id: string;
}

interface Options {
  items?: number;
  samples?: number;
  workers?: number;
  schedule?: "item" | "sample";
  /** Called when a sample starts; may abort the run, or throw. */
  onStart?: (id: string, sample: number) => void;
  sampleMs?: number;
  /** Keep a sample that finished after an interrupt (as checks do), instead of dropping it. */
  keepAfterAbort?: boolean;
}

/** A suite of fake items whose samples sleep, then pass or fail; it records what ran when. */
function fakeSuite(options: Options = {}) {
  const log: { id: string; sample: number; start: number; end: number }[] = [];
  const restored: string[] = [];
  const closedAt: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const items = Array.from({ length: options.items ?? 3 }, (_, i) => ({ id: `item${i}` }));
  const suite: Suite<"checks", Item, { rows: number }> = {
    kind: "checks",
    name: "eb run",
    projectRoot: "/nowhere",
    items,
    samples: options.samples ?? 2,
    workers: options.workers ?? 2,
    schedule: options.schedule ?? "sample",
    settings: { kind: "checks", samples: options.samples ?? 2 },
    definitions: Object.fromEntries(items.map((item) => [item.id, "sha256:x"])),
    command: ["test"],
    manifestRoom: 160,
    scrubber: NO_SECRETS,
    open: async () => {},
    restore: async (row) => {
      restored.push(`${row.id}/${row.sample}`);
    },
    runSample: async (item, sample, { signal }) => {
      options.onStart?.(item.id, sample);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const start = performance.now();
      await new Promise((resolve) => setTimeout(resolve, options.sampleMs ?? 20));
      inFlight--;
      log.push({ id: item.id, sample, start, end: performance.now() });
      if (signal.aborted && !options.keepAfterAbort) return null;
      const row: CheckRow = {
        id: item.id,
        sample,
        score: 1,
        status: "passed",
        marks: {},
        ms: 1,
        model: null,
        error: null,
        cached: false,
        cost: null,
        tags: [],
        reason: null,
      };
      return row;
    },
    finish: async (context) => ({
      report: { rows: context.tally.samples },
      document: documentOf(context.tally),
      files: [
        { name: "report.md", text: "# fake\n" },
        {
          name: "report.html",
          text: htmlPage({ documents: [documentOf(context.tally)], leaderboard: null }),
        },
      ],
      passed: context.tally.samples > 0 && context.tally.items.size === items.length,
      closing: {},
      warnings: [],
    }),
    close: async () => {
      closedAt.push(performance.now());
    },
  };
  return { suite, log, restored, closedAt, maxInFlight: () => maxInFlight };
}

/** The fake run's document, for its report.html. */
function documentOf(tally: RowTally): RunDocument {
  return buildDocument(tally, {
    kind: "checks",
    runId: "fake",
    projectRoot: "/nowhere",
    location: "/nowhere/run",
    startedAt: null,
    completedAt: null,
    durationMs: null,
    run: {
      tool_version: null,
      git_commit: null,
      command: null,
      suite: null,
      target: null,
      judge: null,
      samples_per_item: null,
      sequential: null,
      resumes: 0,
      merged: null,
    },
    itemsPlanned: null,
    passThreshold: 1,
    interrupted: false,
    budget: null,
    budgetExhausted: false,
  });
}

async function configIn() {
  const dir = mkdtempSync(path.join(tmpdir(), "eb-suite-"));
  dirs.push(dir);
  return loadConfig({ cwd: dir, noProjectConfig: true, env: {} });
}

function lines(runDir: string): Record<string, unknown>[] {
  return readFileSync(path.join(runDir, "rows.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("runSuite", () => {
  it("a report.html that cannot be written is a warning: the run and its reports stand", async () => {
    const config = await configIn();
    const { suite } = fakeSuite();
    // A folder where the page would go: writing it fails with EISDIR.
    suite.open = async (runDir) => mkdirSync(path.join(runDir, "report.html"));
    const warnings: string[] = [];
    const run = await runSuite(suite, { config, env: {}, onWarning: (w) => warnings.push(w) });
    expect(run.exitCode).toBe(0);
    expect(warnings).toEqual([expect.stringMatching(/^report\.html was not written: .*EISDIR/)]);
    expect(JSON.parse(readFileSync(path.join(run.runDir, "report.json"), "utf8"))).toEqual({
      rows: 6,
    });
    expect(lines(run.runDir)[0]).toMatchObject({ manifest: { interrupted: false } });
  });

  it("writes the manifest, a row per sample and the reports; exit 0 when the suite passes", async () => {
    const config = await configIn();
    const { suite } = fakeSuite();
    const run = await runSuite(suite, { config, env: {} });
    expect(run.exitCode).toBe(0);
    expect(run.report).toEqual({ rows: 6 });
    expect(readdirSync(run.runDir).sort()).toEqual([
      "report.html",
      "report.json",
      "report.md",
      "rows.jsonl",
    ]);
    const [head, ...rows] = lines(run.runDir);
    expect(head).toMatchObject({
      manifest: {
        tool: "eval-banana",
        kind: "checks",
        samples: 2,
        command: ["test"],
        definitions: { item0: "sha256:x" },
        interrupted: false,
        ended_at: expect.any(String),
      },
    });
    expect(rows.map((row) => `${row.id}/${row.sample}`).sort()).toEqual([
      "item0/0",
      "item0/1",
      "item1/0",
      "item1/1",
      "item2/0",
      "item2/1",
    ]);
  });

  it("schedule item: an item's samples run one after another, items side by side", async () => {
    const config = await configIn();
    const fake = fakeSuite({ schedule: "item", items: 2, samples: 3, workers: 4 });
    await runSuite(fake.suite, { config, env: {} });
    for (const id of ["item0", "item1"]) {
      const mine = fake.log.filter((entry) => entry.id === id);
      expect(mine.map((entry) => entry.sample)).toEqual([0, 1, 2]);
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i]!.start).toBeGreaterThanOrEqual(mine[i - 1]!.end);
      }
    }
    expect(fake.maxInFlight()).toBe(2);
  });

  it("schedule sample: one item's samples run side by side, never more than workers", async () => {
    const config = await configIn();
    const fake = fakeSuite({ schedule: "sample", items: 1, samples: 5, workers: 3 });
    await runSuite(fake.suite, { config, env: {} });
    expect(fake.maxInFlight()).toBe(3);
  });

  it("exit 1 when the suite's gate says it fell short", async () => {
    const config = await configIn();
    const failing = fakeSuite({ items: 1 });
    failing.suite.finish = async (context) => ({
      report: { rows: 0 },
      document: documentOf(context.tally),
      files: [],
      passed: false,
      closing: {},
      warnings: [],
    });
    expect((await runSuite(failing.suite, { config, env: {} })).exitCode).toBe(1);
  });

  it("an interrupt: no sample starts after it, cut samples are dropped, exit 130", async () => {
    const config = await configIn();
    const controller = new AbortController();
    let started = 0;
    const fake = fakeSuite({
      items: 4,
      samples: 2,
      workers: 2,
      onStart: () => {
        started++;
        if (started === 3) controller.abort();
      },
    });
    const run = await runSuite(fake.suite, { config, env: {}, signal: controller.signal });
    expect(run.exitCode).toBe(130);
    expect(started).toBe(3);
    const [head, ...rows] = lines(run.runDir);
    expect(rows).toHaveLength(1);
    expect(head).toMatchObject({ manifest: { interrupted: true } });
  });

  it("--resume runs only the missing samples, and refuses changed settings", async () => {
    const config = await configIn();
    const controller = new AbortController();
    const first = fakeSuite({
      items: 3,
      samples: 2,
      workers: 1,
      onStart: (id, sample) => {
        if (id === "item1" && sample === 1) controller.abort();
      },
    });
    const interrupted = await runSuite(first.suite, {
      config,
      env: {},
      signal: controller.signal,
    });
    expect(interrupted.exitCode).toBe(130);
    const again = fakeSuite({ items: 3, samples: 2, workers: 1 });
    const resumed = await runSuite(again.suite, { config, env: {}, resume: interrupted.runDir });
    expect(resumed.exitCode).toBe(0);
    expect(again.restored.sort()).toEqual(["item0/0", "item0/1", "item1/0"]);
    expect(again.log.map((entry) => `${entry.id}/${entry.sample}`)).toEqual([
      "item1/1",
      "item2/0",
      "item2/1",
    ]);
    const [head, ...rows] = lines(interrupted.runDir);
    expect(rows).toHaveLength(6);
    expect(head).toMatchObject({ manifest: { resumes: 1, interrupted: false } });

    const otherSamples = fakeSuite({ items: 3, samples: 3 });
    await expect(
      runSuite(otherSamples.suite, { config, env: {}, resume: interrupted.runDir }),
    ).rejects.toThrow(
      new InputError(`--resume ${interrupted.runDir}: samples changed. Start a new run instead.`),
    );
  });

  it("schedule item: after an interrupt an item's next sample does not start; a kept row is written", async () => {
    const config = await configIn();
    const controller = new AbortController();
    const fake = fakeSuite({
      schedule: "item",
      items: 1,
      samples: 3,
      keepAfterAbort: true,
      onStart: (_id, sample) => {
        if (sample === 1) controller.abort();
      },
    });
    const run = await runSuite(fake.suite, { config, env: {}, signal: controller.signal });
    expect(run.exitCode).toBe(130);
    expect(fake.log.map((entry) => entry.sample)).toEqual([0, 1]);
    const rows = lines(run.runDir).slice(1);
    expect(rows.map((row) => row.sample)).toEqual([0, 1]);
  });

  it("a sample that throws: no other starts, the suite closes after all settle, the rows file is left as a crash leaves it", async () => {
    const config = await configIn();
    const fake = fakeSuite({
      items: 6,
      samples: 1,
      workers: 3,
      sampleMs: 50,
      keepAfterAbort: true,
      onStart: (id) => {
        if (id === "item1") throw new Error("disk full");
      },
    });
    await expect(runSuite(fake.suite, { config, env: {} })).rejects.toThrow("disk full");
    // item0 and item2 were in flight; nothing after them started.
    expect(fake.log.map((entry) => entry.id).sort()).toEqual(["item0", "item2"]);
    const lastEnd = Math.max(...fake.log.map((entry) => entry.end));
    expect(fake.closedAt[0]).toBeGreaterThanOrEqual(lastEnd);
    const [runDir] = readdirSync(config.outputDir).map((name) => path.join(config.outputDir, name));
    expect(readdirSync(runDir!)).toEqual(["rows.jsonl"]);
    const [head, ...rows] = lines(runDir!);
    expect(head).toMatchObject({ manifest: { ended_at: null } });
    expect(rows.map((row) => row.id).sort()).toEqual(["item0", "item2"]);
  });

  it("a refused --resume leaves the rows file as it was, byte for byte", async () => {
    const config = await configIn();
    const first = await runSuite(fakeSuite().suite, { config, env: {} });
    const file = path.join(first.runDir, "rows.jsonl");
    const before = readFileSync(file);
    for (const suite of [fakeSuite({ samples: 3 }).suite, fakeSuite({ items: 2 }).suite]) {
      await expect(runSuite(suite, { config, env: {}, resume: first.runDir })).rejects.toThrow(
        /samples changed|definitions changed/,
      );
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    writeFileSync(file, `not json\n${before.toString("utf8").split("\n").slice(1).join("\n")}`);
    await expect(
      runSuite(fakeSuite().suite, { config, env: {}, resume: first.runDir }),
    ).rejects.toThrow(
      new InputError(
        `--resume ${first.runDir}: its manifest is not one eb wrote. Start a new run instead.`,
      ),
    );
  });
});
