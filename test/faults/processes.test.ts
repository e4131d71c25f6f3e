import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runProcess } from "../../src/process/run.js";
import { deterministicYaml, makeProject, runEb } from "../helpers/project.js";
import {
  agentProject,
  checkFile,
  FLOOD_BYTES,
  isDeadOrZombie,
  onlyRun,
  peakRssMb,
  pidsIn,
} from "./process-support.js";
import { caseLine, casesProject, OUT, readRun } from "./support.js";

const BAD_TARGET = path.resolve(import.meta.dirname, "fixtures/bad-target.mjs");

/** Python that ignores SIGTERM, starts children (each forking once) that ignore it too. */
const FORKING_SCRIPT = [
  "import json, os, signal, subprocess, sys, time",
  "ctx = json.load(open(sys.argv[1]))",
  "pids = os.path.join(ctx['project_root'], 'pids.txt')",
  "signal.signal(signal.SIGTERM, signal.SIG_IGN)",
  "open(pids, 'a').write(f'{os.getpid()}\\n')",
  "child = '''",
  "import os, signal, sys, time",
  "signal.signal(signal.SIGTERM, signal.SIG_IGN)",
  "os.fork()",
  "open(sys.argv[1], 'a').write(f'{os.getpid()}\\\\n')",
  "time.sleep(120)",
  "'''",
  "for _ in range(3):",
  "    subprocess.Popen([sys.executable, '-c', child, pids])",
  "time.sleep(120)",
].join("\n");

describe("eb run with deterministic scripts that misbehave", () => {
  it("turns a hanging script into an error row and finishes the others", async () => {
    const project = makeProject({
      "eval_checks/hang.yaml": deterministicYaml("hang", "import time\ntime.sleep(120)"),
      "eval_checks/ok.yaml": deterministicYaml("ok", "import sys\nsys.exit(0)"),
    });
    const started = Date.now();
    const result = await runEb(["run", "--cwd", project, "--check-timeout-seconds", "1"]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(1);
    const { check, rows } = onlyRun(project);
    expect(check("hang")).toMatchObject({ status: "error" });
    expect(check("hang").error_detail).toMatch(/timed out after 1 seconds/);
    expect(check("ok").status).toBe("passed");
    expect(rows.map((r) => [r.id, r.status]).sort()).toEqual([
      ["hang", "error"],
      ["ok", "passed"],
    ]);
  });

  it("kills the whole process group, children that ignore SIGTERM included", async () => {
    const project = makeProject({
      "eval_checks/forks.yaml": deterministicYaml("forks", FORKING_SCRIPT),
    });
    const result = await runEb(["run", "--cwd", project, "--check-timeout-seconds", "4"]);
    expect(result.code).toBe(1);
    expect(onlyRun(project).check("forks").status).toBe("error");
    const pids = pidsIn(path.join(project, "pids.txt"));
    // The leader, 3 children and their 3 forks.
    expect(pids).toHaveLength(7);
    const alive = pids.filter((pid) => !isDeadOrZombie(pid));
    expect(alive, "processes still running after eb exited").toEqual([]);
  });

  it("streams 200 MB of stdout to its file in bounded memory; the report keeps a tail", async () => {
    const flood = [
      "import sys",
      "chunk = b'x' * (1 << 20)",
      "for _ in range(200):",
      "    sys.stdout.buffer.write(chunk)",
      "sys.stdout.buffer.write(b'THE-END')",
    ].join("\n");
    const quiet = makeProject({ "eval_checks/q.yaml": deterministicYaml("q", "print('hi')") });
    const loud = makeProject({ "eval_checks/flood.yaml": deterministicYaml("flood", flood) });
    const baseline = await peakRssMb(["run", "--cwd", quiet]);
    const peak = await peakRssMb(["run", "--cwd", loud]);
    // Holding the output would cost 200 MB or more; a bounded tail costs next to nothing.
    expect(peak - baseline, `peak ${peak} MB, baseline ${baseline} MB`).toBeLessThan(64);

    const { runDir, check } = onlyRun(loud);
    expect(check("flood").status).toBe("passed");
    expect(statSync(checkFile(runDir, "flood", ".stdout.txt")).size).toBe(FLOOD_BYTES + 7);
    const [banner, tail] = check("flood").stdout.split("\n");
    expect(banner).toMatch(/last 2000 of 209715207 characters/);
    expect(tail).toHaveLength(2000);
    expect(tail?.endsWith("THE-END")).toBe(true);
    expect(statSync(path.join(runDir, "report.json")).size).toBeLessThan(64 * 1024);
  }, 120_000);

  it("completes with valid JSON when a script prints invalid UTF-8 and NUL bytes", async () => {
    const script = [
      "import sys",
      "sys.stdout.buffer.write(b'ok \\xff\\xfe \\xc3\\x28 \\xed\\xa0\\x80 \\x00 end\\n')",
      "sys.stderr.buffer.write(b'\\x80\\x81 err \\x00\\n')",
      "sys.stdout.buffer.write(b'\\xe2\\x82')",
      "sys.exit(1)",
    ].join("\n");
    const project = makeProject({ "eval_checks/bytes.yaml": deterministicYaml("bytes", script) });
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(1);
    const { runDir, check, rows } = onlyRun(project);
    expect(check("bytes").status).toBe("failed");
    expect(check("bytes").stdout).toContain("ok ");
    expect(check("bytes").stdout).toContain("\u0000");
    expect(check("bytes").stderr).toContain("err");
    expect(rows).toHaveLength(1);
    expect(readFileSync(path.join(runDir, "report.md"), "utf8")).toContain("bytes");
  });
});

describe("eb run with a judge agent that misbehaves", () => {
  it("times out a hanging agent into an error row", async () => {
    const project = agentProject("hang", 1);
    const started = Date.now();
    const result = await runEb(["run", "--cwd", project]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(1);
    expect(onlyRun(project).check("judge").error_detail).toMatch(/timed out after 1 seconds/);
  });

  it("kills an agent's children that ignore SIGTERM", async () => {
    const project = agentProject("fork-ignore-term", 3);
    const pids = path.join(project, "agent-pids.txt");
    const result = await runEb(["run", "--cwd", project], { env: { BAD_AGENT_PIDS: pids } });
    expect(result.code).toBe(1);
    const all = pidsIn(pids);
    expect(all).toHaveLength(4);
    expect(all.filter((pid) => !isDeadOrZombie(pid))).toEqual([]);
  });

  it("reads the verdict through invalid UTF-8 and NUL bytes, and writes valid JSON", async () => {
    const project = agentProject("bad-utf8");
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(0);
    const { check, rows } = onlyRun(project);
    expect(check("judge")).toMatchObject({ status: "passed", reason: "fine" });
    expect(rows).toHaveLength(1);
  });
});

describe("eb eval with a --target program that misbehaves", () => {
  const target = `${process.execPath} ${BAD_TARGET}`;
  const lines = ["a", "b"].map((id) => caseLine(id, id, [{ type: "contains", all: ["answer"] }]));
  const evalTarget = (root: string, env: Record<string, string>, extra: string[] = []) =>
    runEb(["eval", "cases.jsonl", "--target", target, "--out", OUT, "--flat-output", ...extra], {
      cwd: root,
      env,
    });

  it("kills a hanging target with its children that ignore SIGTERM; error rows", async () => {
    const root = casesProject(lines);
    const pids = path.join(root, "pids.txt");
    const env = { BAD_TARGET_MODE: "fork-ignore-term", BAD_TARGET_PIDS: pids };
    const started = Date.now();
    const result = await evalTarget(root, env, ["--timeout-seconds", "3"]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.code).toBe(1);
    const { rows, report } = readRun(path.join(root, OUT));
    expect(rows.map((r) => r.status)).toEqual(["error", "error"]);
    expect(rows[0]?.error).toMatch(/timed out after 3s/);
    expect(report.stats.errors).toBe(2);
    const all = pidsIn(pids);
    expect(all).toHaveLength(6);
    expect(all.filter((pid) => !isDeadOrZombie(pid))).toEqual([]);
  });

  it("grades an output with invalid UTF-8 and NUL bytes, writing valid JSON", async () => {
    const root = casesProject(lines);
    const result = await evalTarget(root, { BAD_TARGET_MODE: "bad-utf8" });
    expect(result.code, result.stderr).toBe(0);
    const { rows } = readRun(path.join(root, OUT));
    expect(rows.map((r) => r.status)).toEqual(["passed", "passed"]);
    const text = rows[0]?.text ?? "";
    expect(text.startsWith("an answer \uFFFD")).toBe(true);
    expect(text).toContain("\u0000");
    expect(text.endsWith("end")).toBe(true);
  });
});

describe("the grace between SIGTERM and SIGKILL", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** Aborts a child that ignores SIGTERM once it is ready; how long until it is gone, and how. */
  async function graceOfAbort(): Promise<{ ms: number; signal: string | null }> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "eb-grace-"));
    const out = path.join(dir, "out.txt");
    const controller = new AbortController();
    const done = runProcess({
      command: process.execPath,
      args: [
        "-e",
        "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)",
      ],
      cwd: dir,
      env: {},
      stdoutFile: out,
      signal: controller.signal,
    });
    while (!(existsSync(out) && readFileSync(out, "utf8").includes("ready")))
      await new Promise((resolve) => setTimeout(resolve, 10));
    const aborted = performance.now();
    controller.abort();
    const result = await done;
    rmSync(dir, { recursive: true, force: true });
    return { ms: performance.now() - aborted, signal: result.signal };
  }

  it("is 2 s for users", async () => {
    vi.stubEnv("EVAL_BANANA_KILL_GRACE_MS", undefined);
    const { ms, signal } = await graceOfAbort();
    expect(signal).toBe("SIGKILL");
    expect(ms).toBeGreaterThanOrEqual(1990);
  });

  it("is EVAL_BANANA_KILL_GRACE_MS where set (eb's tests set it lower)", async () => {
    vi.stubEnv("EVAL_BANANA_KILL_GRACE_MS", "50");
    const { ms, signal } = await graceOfAbort();
    expect(signal).toBe("SIGKILL");
    expect(ms).toBeLessThan(1500);
  });
});
