import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FaultServer, reply, startFaultServer } from "../faults/fault-server.js";
import { completion, lastContent } from "../helpers/loopback-server.js";
import {
  CLI,
  cleanEnv,
  deterministicYaml,
  makeProject,
  newestRun,
  runEb,
  waitForFileScript,
  writeFile,
} from "../helpers/project.js";

const KEY = "sk-test-resume";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Every whole line of a run's rows.jsonl, parsed (the manifest first): polled while eb writes,
 * the file can be empty or end in a line still being written.
 */
function linesOf(runDir: string): Record<string, unknown>[] {
  const file = path.join(runDir, "rows.jsonl");
  if (!existsSync(file)) return [];
  const text = readFileSync(file, "utf8");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function onlyRun(project: string): string {
  const results = path.join(project, ".eval-banana/results");
  const [run] = existsSync(results) ? readdirSync(results) : [];
  return run === undefined ? "" : path.join(results, run);
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} never happened`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts eb in `cwd`; `stop()` sends SIGINT and resolves with the exit code and stderr. */
function startEb(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...cleanEnv(), ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    stop: async () => {
      child.kill("SIGINT");
      return { code: await closed, stdout, stderr };
    },
  };
}

/**
 * A target that answers the first `answered` calls and holds every later one until `open()`; a
 * judge ("judge-m") that always passes.
 */
async function heldServer(answered: number) {
  let open = false;
  let targetCalls = 0;
  server = await startFaultServer((request) => {
    if ((request.json as { model?: string }).model === "judge-m") {
      return reply(completion('{"score": 1, "reason": "fine"}'));
    }
    targetCalls++;
    if (!open && targetCalls > answered) return { kind: "hang" };
    return reply(completion(`echo: ${lastContent(request)}`));
  });
  return {
    server,
    targetCalls: () => targetCalls,
    open: () => {
      open = true;
    },
  };
}

const CASES = Array.from({ length: 5 }, (_, i) =>
  JSON.stringify({
    id: `c${i}`,
    messages: [{ role: "user", content: `question ${i}` }],
    graders: [
      { type: "contains", all: ["echo"] },
      { type: "judge", criteria: ["answers the question"] },
    ],
  }),
);

const env = { EVAL_BANANA_API_KEY: KEY };
const SETTINGS = ["-k", "2", "--temperature", "0.5", "--max-tokens", "64", "--judge", "judge-m"];

/** `eb eval` of the 5 cases, k=2, one at a time, stopped by SIGINT after 3 samples. */
async function interruptedEval() {
  const held = await heldServer(3);
  const root = makeProject({ "cases.jsonl": `${CASES.join("\n")}\n` });
  const started = startEb(
    ["eval", "cases.jsonl", "-m", "mock", "--api-base", held.server.baseURL, ...SETTINGS],
    root,
    { ...env, EVAL_BANANA_WORKERS: "1" },
  );
  // c0's two samples and c1's first are rows; c1's second is held.
  await waitFor(() => held.targetCalls() === 4 && linesOf(onlyRun(root)).length === 4, "3 rows");
  const interrupted = await started.stop();
  expect(interrupted.code).toBe(130);
  return { held, root, runDir: onlyRun(root), interrupted };
}

describe("eb eval --resume RUN takes the target and settings from the run", () => {
  it("finishes with no target flag; a flag that differs is refused", async () => {
    const { held, root, runDir } = await interruptedEval();
    const before = readFileSync(path.join(runDir, "rows.jsonl"));

    for (const [flag, changed] of [
      [["-k", "3"], "k changed"],
      [["-m", "other"], "target changed"],
      [["--temperature", "1"], "temperature changed"],
      [["--judge", "judge-x"], "judge_model changed"],
      [["--api-base", "http://127.0.0.1:9/v1"], "target changed"],
    ] as const) {
      const refused = await runEb(["eval", "cases.jsonl", ...flag, "--resume", runDir], {
        cwd: root,
        env,
      });
      expect(refused.code, flag.join(" ")).toBe(2);
      expect(refused.stderr).toContain(`--resume ${runDir}: ${changed}. Start a new run instead.`);
      expect(readFileSync(path.join(runDir, "rows.jsonl")).equals(before)).toBe(true);
    }

    held.open();
    const seen = held.server.requests.length;
    // No case file, -m, -k, --temperature, --max-tokens, --judge or --api-base: all from the run.
    const resumed = await runEb(["eval", "--resume", runDir], { cwd: root, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = linesOf(runDir);
    expect(lines[0]).toHaveProperty("manifest.resumes", 1);
    const rows = lines.slice(1).map((row) => `${row.id}#${row.sample}`);
    expect(rows.sort()).toEqual(CASES.flatMap((_, i) => [`c${i}#0`, `c${i}#1`]).sort());
    const calls = held.server.requests.slice(seen).map((r) => r.json as Record<string, unknown>);
    const targetCalls = calls.filter((call) => call.model === "mock");
    // c1's second sample and c2..c4's two each; the judge too (through the same endpoint).
    expect(targetCalls).toHaveLength(7);
    expect(calls.filter((call) => call.model === "judge-m").length).toBeGreaterThan(0);
    for (const call of targetCalls)
      expect(call).toMatchObject({ temperature: 0.5, max_tokens: 64 });
  }, 60_000);

  it("asks for the case file when there is no run to take it from, or the run's has moved", async () => {
    const { held, root, runDir } = await interruptedEval();
    held.open();
    const none = await runEb(["eval", "-m", "mock"], { cwd: root, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no case file: eb eval CASES.jsonl -m MODEL");
    renameSync(path.join(root, "cases.jsonl"), path.join(root, "moved.jsonl"));
    const moved = await runEb(["eval", "--resume", runDir], { cwd: root, env });
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain("--resume: the run's case file cases.jsonl is in none of");
    expect(moved.stderr).toContain("eb eval CASES.jsonl --resume RUN");
  }, 60_000);
});

describe("an interrupted run counts the items that never ran", () => {
  const NOT_RUN = "Interrupted: 3 of 5 items never ran (7 of 10 samples)";
  const SCOPE = "over the 2 of 5 items that ran";

  it("eb eval: report.json, report.md, the console and eb report", async () => {
    const { root, runDir, interrupted } = await interruptedEval();
    const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
    expect(report).toMatchObject({ items_planned: 5, items_not_run: 3, samples_planned: 10 });
    // The statistics stay those of what ran.
    expect(report.stats).toMatchObject({ items: 2, samples: 3, pass_rate: 1 });
    expect(interrupted.stdout).toContain(NOT_RUN);
    expect(interrupted.stdout).toContain(`pass rate 1.000 ${SCOPE}`);
    const markdown = readFileSync(path.join(runDir, "report.md"), "utf8");
    expect(markdown).toContain(
      `> **${NOT_RUN}.** The statistics below are over the items that ran.`,
    );
    expect(markdown).toContain("| Interrupted | yes (3 of 5 items never ran (7 of 10 samples)) |");
    expect(markdown).toContain(`| Pass rate | 1.000 (mean of item scores; ${SCOPE}) |`);

    const text = await runEb(["report", runDir], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n")[0]).toBe(NOT_RUN);
    expect(text.stdout).toContain(`pass rate 1.000 ${SCOPE}`);
    const json = await runEb(["report", runDir, "--json"], { cwd: root });
    expect(JSON.parse(json.stdout)).toMatchObject({
      items: 2,
      samples: 3,
      items_planned: 5,
      items_not_run: 3,
      samples_planned: 10,
    });
  }, 60_000);

  it("a finished run says nothing of the kind", async () => {
    const { held, root, runDir } = await interruptedEval();
    held.open();
    const resumed = await runEb(["eval", "cases.jsonl", "--resume", runDir], { cwd: root, env });
    expect(resumed.stdout).not.toContain("Interrupted");
    expect(resumed.stdout).not.toContain("items that ran");
    expect(readFileSync(path.join(runDir, "report.md"), "utf8")).not.toContain("Interrupted");
    const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
    expect(report).toMatchObject({ items_planned: 5, items_not_run: 0, samples_planned: 10 });
    const text = await runEb(["report", runDir], { cwd: root });
    expect(text.stdout).not.toContain("Interrupted");
  }, 60_000);
});

describe("eb run --resume RUN takes the samples and the checks from the run", () => {
  it("finishes the selected checks with their samples; --samples that differs is refused", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass", "tags: [picked]\n"),
      "eval_checks/b.yaml": deterministicYaml("b", waitForFileScript("go"), "tags: [picked]\n"),
      "eval_checks/c.yaml": deterministicYaml("c", "raise SystemExit('not picked')"),
    });
    const started = startEb(["run", "--tag", "picked", "--samples", "2"], project);
    await waitFor(() => linesOf(onlyRun(project)).length === 3, "a's two samples");
    const interrupted = await started.stop();
    expect(interrupted.code).toBe(130);
    const runDir = onlyRun(project);
    // The report counts b, which never ran, and c, which was not selected, not at all.
    const NOT_RUN = "Interrupted: 1 of 2 items never ran";
    expect(interrupted.stdout).toContain(NOT_RUN);
    expect(readFileSync(path.join(runDir, "report.md"), "utf8")).toContain(`> **${NOT_RUN}.**`);
    expect(JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"))).toMatchObject({
      items_planned: 2,
      items_not_run: 1,
      samples_planned: 4,
    });
    const text = await runEb(["report", runDir], { cwd: project });
    expect(text.stdout).toContain(NOT_RUN);
    expect(text.stdout).toContain("pass rate 1.000 over the 1 of 2 items that ran");

    const refused = await runEb(["run", "--samples", "3", "--resume", runDir], { cwd: project });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("samples changed");

    writeFile(project, "go", "");
    const resumed = await runEb(["run", "--resume", runDir], { cwd: project });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const rows = linesOf(runDir).slice(1);
    expect(rows.map((row) => `${row.id}#${row.sample}`).sort()).toEqual([
      "a#0",
      "a#1",
      "b#0",
      "b#1",
    ]);
    const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
    expect(report.checks.map((check: { check_id: string }) => check.check_id)).toEqual(["a", "b"]);
  }, 60_000);
});

describe("--resume RUN keeps the settings that decide the gate", () => {
  /** 5 cases, of which the last 2 fail: 60% of the samples pass. */
  const GATE_CASES = `${Array.from({ length: 5 }, (_, i) =>
    JSON.stringify({
      id: `g${i}`,
      messages: [{ role: "user", content: `question ${i}` }],
      graders: [{ type: "contains", all: [i < 3 ? "echo" : "nope"] }],
    }),
  ).join("\n")}\n`;

  /** Starts `eb eval` one case at a time and stops it by SIGINT once 2 rows are written. */
  async function interrupted(
    root: string,
    held: Awaited<ReturnType<typeof heldServer>>,
    flags: string[],
  ) {
    const before = held.targetCalls();
    const started = startEb(
      ["eval", "cases.jsonl", "-m", "mock", "--api-base", held.server.baseURL, ...flags],
      root,
      { ...env, EVAL_BANANA_WORKERS: "1" },
    );
    const results = path.join(root, ".eval-banana/results");
    const newest = () => newestRun(results);
    await waitFor(
      () => held.targetCalls() === before + 3 && linesOf(newest()).length === 3,
      "2 rows",
    );
    expect((await started.stop()).code).toBe(130);
    return newest();
  }

  it("eb eval: a run started at --pass-threshold 0.6 is judged at 0.6", async () => {
    const held = await heldServer(2);
    const root = makeProject({ "cases.jsonl": GATE_CASES });
    const runDir = await interrupted(root, held, ["--pass-threshold", "0.6"]);
    held.open();
    const resumed = await runEb(["eval", "--resume", runDir], { cwd: root, env });
    expect(resumed.stdout).toContain(
      "Gate: 3/5 samples passed (60.0%) ≥ threshold 0.6, no error samples → passed",
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    // A threshold given with --resume wins.
    const stricter = await runEb(["eval", "--resume", runDir, "--pass-threshold", "0.8"], {
      cwd: root,
      env,
    });
    expect(stricter.stdout).toContain("Gate: 3/5 samples passed (60.0%) < threshold 0.8");
    expect(stricter.code).toBe(1);
  }, 60_000);

  it("eb eval: a run started with --baseline, --margin, --inconclusive and --scope is compared with that baseline", async () => {
    const held = await heldServer(7);
    const root = makeProject({ "cases.jsonl": GATE_CASES });
    const base = await runEb(
      [
        "eval",
        "cases.jsonl",
        "-m",
        "mock",
        "--api-base",
        held.server.baseURL,
        "--pass-threshold",
        "0",
      ],
      { cwd: root, env },
    );
    expect(base.code, base.stderr).toBe(0);
    const baseline = onlyRun(root);
    const flags = [
      "--no-cache",
      "--baseline",
      "latest",
      "--margin",
      "0.5",
      "--inconclusive",
      "pass",
      "--scope",
      "population",
    ];
    const runDir = await interrupted(root, held, flags);
    held.open();
    const resumed = await runEb(["eval", "--resume", runDir], { cwd: root, env });
    expect(resumed.stdout).toContain(`Compared with the baseline ${baseline}:`);
    expect(resumed.stdout).toMatch(
      new RegExp(
        `Gate: paired compare with the baseline ${path.basename(baseline)} at margin 0\\.5 → .* on cases like these .* → passed\\n$`,
      ),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
  }, 60_000);

  it("eb run: a run started at --pass-threshold 0.5 is judged at 0.5", async () => {
    const failsOnGo = `${waitForFileScript("go")}\nsys.exit('went')`;
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", failsOnGo),
    });
    const started = startEb(["run", "--pass-threshold", "0.5"], project);
    await waitFor(() => linesOf(onlyRun(project)).length === 2, "a's row");
    expect((await started.stop()).code).toBe(130);
    writeFile(project, "go", "");
    const resumed = await runEb(["run", "--resume", onlyRun(project)], { cwd: project });
    expect(resumed.stdout).toContain(
      "Gate: 1/2 samples passed (50.0%) ≥ threshold 0.5, no error samples → passed",
    );
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
  }, 60_000);
});
