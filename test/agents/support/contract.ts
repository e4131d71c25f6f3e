import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { safeStem } from "../../../src/checks/stem.js";
import { cleanEnv, runEb } from "../../helpers/project.js";
import { FAIL_VERDICT, type MockRecord, PASS_VERDICT } from "../mocks/common.js";
import { AGENTS, type AgentSetup } from "./agents.js";
import {
  agentCacheDir,
  banner,
  binDir,
  ensureInstalled,
  type InstallOutcome,
  log,
} from "./install.js";

const CHECK_ID = "evidence_token_present";
const DESCRIPTION = "evidence.txt carries the release token.";
const INSTRUCTIONS = [
  "Read the file evidence.txt in the project root with your own file-reading or shell tool.",
  "Score 1 if it contains a release token (the word BANANA, a dash, then hex digits);",
  "score 0 if it does not.",
].join("\n");
/** The harness timeout the runs use (the report must show it). */
const TIMEOUT_SECONDS = 180;

interface CheckJson {
  status: string;
  score: number;
  reason: string | null;
  error_detail: string | null;
  exit_code: number | null;
  duration_ms: number;
  details: Record<string, unknown>;
}

interface ContractRun {
  code: number;
  stdout: string;
  stderr: string;
  check: CheckJson | undefined;
  runDir: string | null;
  prompt: string | null;
  records: MockRecord[];
  token: string;
  marker: string;
  ms: number;
  root: string;
  logFile: string;
}

/** Variables that could carry real credentials or endpoints to a real provider. */
const PROVIDER_ENV =
  /^(OPENAI|ANTHROPIC|CLAUDE|CODEX|GEMINI|GOOGLE|XAI|GROK|OPENCODE|OPENROUTER|LLM|AWS|AZURE|VERTEX)_/;

/**
 * The contract for one real agent CLI: a real `eb run` with a harness_judge check through the
 * built-in template, the CLI pointed at a loopback mock that makes it read evidence.txt with its
 * own tool and answers a verdict that depends on what the tool returned.
 */
export function defineAgentContract(agent: string): void {
  const setup = AGENTS[agent];
  if (!setup) throw new Error(`no contract setup for ${agent}`);
  const { cli } = setup;

  const what =
    "script" in cli ? `a fake of ${cli.pkg} ${cli.version}` : `${cli.pkg}@${cli.version}`;
  describe(`${agent}: ${what} against a loopback mock`, () => {
    let install: InstallOutcome = { status: "offline", message: "not installed yet" };
    let version = "";
    const times: Record<string, number> = {};

    beforeAll(async () => {
      install = "script" in cli ? { status: "ready" } : await ensureInstalled(agent);
      if (install.status === "ready") version = await cliVersion(setup);
    });

    afterAll(() => {
      if ("script" in cli)
        rmSync(path.dirname(agentBinDir(setup)), { recursive: true, force: true });
      if (install.status !== "ready") return;
      const secs = (key: string) =>
        times[key] === undefined ? "n/a" : `${(times[key] / 1000).toFixed(1)} s`;
      const line = `${agent} ${cli.version} (${version}): score-1 verdict ${secs("pass")}, score-0 verdict ${secs("fail")}`;
      log(line);
      const dir = path.join(agentCacheDir(), "last-run");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, `${agent}.json`),
        `${JSON.stringify({ agent, version, times, at: new Date() }, null, 2)}\n`,
      );
    });

    const skipWhenOffline = (ctx: TestContext) => {
      if (install.status !== "offline") return;
      banner(
        `${agent} (${cli.pkg}@${cli.version}) is not installed and ${install.message.split("\n")[0]}`,
      );
      ctx.skip(install.message);
    };

    it("reads evidence.txt with its own tool and passes on the token", async (ctx) => {
      skipWhenOffline(ctx);
      const run = await contractRun(setup, true, ctx);
      times.pass = run.ms;
      const why = diagnose(run);
      expect(run.code, why).toBe(0);
      expect(run.check, why).toMatchObject({
        status: "passed",
        score: 1,
        reason: "evidence token found",
        exit_code: 0,
      });
      expect(run.check?.details).toMatchObject({
        agent_type: agent,
        model: setup.model,
        reasoning_effort: setup.expectedEffort,
        timeout_seconds: TIMEOUT_SECONDS,
      });
      expectRoundTrip(setup, run, why, PASS_VERDICT);
      // The verdict reached stdout (the extractor read it from there).
      const stdoutFile = path.join(run.runDir!, String(run.check?.details.raw_response_path));
      expect(readFileSync(stdoutFile, "utf8"), why).toContain(PASS_VERDICT);
    });

    it("fails when evidence.txt lacks the token (the verdict depends on the file)", async (ctx) => {
      skipWhenOffline(ctx);
      const run = await contractRun(setup, false, ctx);
      times.fail = run.ms;
      const why = diagnose(run);
      // A failed check fails the run (exit 1), but it is not an error.
      expect(run.code, why).toBe(1);
      expect(run.check, why).toMatchObject({
        status: "failed",
        score: 0,
        reason: JSON.parse(FAIL_VERDICT).reason,
        error_detail: null,
        exit_code: 0,
      });
      expectRoundTrip(setup, run, why, FAIL_VERDICT);
    });
  });
}

/** The judge's conversation: a tool call, then the file's content coming back to the model. */
function expectRoundTrip(setup: AgentSetup, run: ContractRun, why: string, verdict: string): void {
  const main = run.records.filter((r) => r.role === "main");
  expect(main.length, why).toBeGreaterThanOrEqual(2);
  const first = main[0]!;
  expect(first.toolResults, why).toEqual([]);
  expect(first.decision?.kind, why).toBe("call");
  for (const record of main) expect(record.model, why).toBe(setup.requestModel);
  // The prompt eb saved is the prompt the model was given.
  expect(run.prompt, why).not.toBeNull();
  expect(first.userText, `${why}\nthe model did not get prompt.txt verbatim`).toContain(
    run.prompt!,
  );
  // The tool really read the file: its result carries this run's marker.
  const answered = main.filter((r) => r.toolResults.some((t) => t.includes(run.marker)));
  const noMarker = `${why}\nno tool result held the marker ${run.marker}`;
  expect(answered.length, noMarker).toBeGreaterThan(0);
  // …and the mock answered that tool result with the verdict eb reported.
  expect(answered[0]!.decision, why).toEqual({ kind: "text", text: verdict });
  // The prompt itself never gives the token away.
  expect(run.prompt!.includes(run.token)).toBe(false);
}

async function contractRun(
  setup: AgentSetup,
  withToken: boolean,
  ctx: TestContext,
): Promise<ContractRun> {
  const agent = setup.cli.agent;
  const root = mkdtempSync(path.join(os.tmpdir(), `eb-agent-${agent}-`));
  const project = path.join(root, "project");
  const home = path.join(root, "home");
  // eb is started from another folder (`eb run --cwd PROJECT`), so an agent that takes its
  // workspace from the inherited $PWD instead of its real cwd shows up.
  const elsewhere = path.join(root, "elsewhere");
  for (const dir of [project, home, elsewhere]) mkdirSync(dir, { recursive: true });
  ctx.onTestFinished(({ task }) => {
    const keep = process.env.EVAL_BANANA_AGENTS_KEEP === "1";
    if (task.result?.state === "pass" && !keep) rmSync(root, { recursive: true, force: true });
    else log(`${agent}: kept ${root} (mock log: ${path.join(root, "mock", "requests.jsonl")})`);
  });

  const token = `BANANA-${randomBytes(8).toString("hex")}`;
  // Distinct from the token, so the negative run still proves the tool read the file.
  const marker = `MARKER-${randomBytes(8).toString("hex")}`;
  const evidencePath = path.join(project, "evidence.txt");
  writeFileSync(
    evidencePath,
    withToken
      ? `Release notes\nrun marker: ${marker}\nrelease token: ${token}\n`
      : `Release notes\nrun marker: ${marker}\nrelease token: (not issued yet)\n`,
  );
  const mock = await setup.startMock({ token, evidencePath, logDir: path.join(root, "mock") });
  try {
    const input = { home, project, mockUrl: mock.url };
    const harnessEnv = setup.prepare(input);
    const harness: Record<string, unknown> = {
      agent,
      model: setup.model,
      timeout_seconds: TIMEOUT_SECONDS,
      env: harnessEnv,
    };
    if (setup.reasoningEffort !== null) harness.reasoning_effort = setup.reasoningEffort;
    writeProjectFile(
      project,
      ".eval-banana/config.toml",
      `${stringify({ harness })}\n${setup.override(input)}`,
    );
    writeProjectFile(
      project,
      "eval_checks/judge.yaml",
      [
        "schema_version: 1",
        `id: ${CHECK_ID}`,
        "type: harness_judge",
        `description: ${DESCRIPTION}`,
        "instructions: |",
        ...INSTRUCTIONS.split("\n").map((line) => `  ${line}`),
        "",
      ].join("\n"),
    );

    const started = performance.now();
    const result = await runEb(["run", "--cwd", project], {
      cwd: elsewhere,
      env: { ...ebEnv(setup), PWD: elsewhere },
      timeoutMs: (TIMEOUT_SECONDS + 60) * 1000,
    });
    const ms = performance.now() - started;
    const runDir = onlyRunDir(project);
    const check = runDir ? readCheck(runDir) : undefined;
    const promptFile = runDir
      ? path.join(runDir, "checks", `${safeStem(CHECK_ID)}.prompt.txt`)
      : null;
    return {
      ...result,
      check,
      runDir,
      prompt: promptFile && existsSync(promptFile) ? readFileSync(promptFile, "utf8") : null,
      records: [...mock.records],
      token,
      marker,
      ms,
      root,
      logFile: mock.logFile,
    };
  } finally {
    await mock.close();
  }
}

/** eb's own environment: the CLI on PATH, no real provider settings inherited. */
export function ebEnv(setup: AgentSetup): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of Object.keys(cleanEnv())) if (PROVIDER_ENV.test(key)) env[key] = undefined;
  env.PATH = `${agentBinDir(setup)}${path.delimiter}${process.env.PATH ?? ""}`;
  return env;
}

function writeProjectFile(root: string, relative: string, content: string): void {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, content);
}

function onlyRunDir(project: string): string | null {
  const results = path.join(project, ".eval-banana", "results");
  if (!existsSync(results)) return null;
  const runs = readdirSync(results);
  return runs.length === 1 ? path.join(results, runs[0]!) : null;
}

function readCheck(runDir: string): CheckJson | undefined {
  const file = path.join(runDir, "report.json");
  if (!existsSync(file)) return undefined;
  const report = JSON.parse(readFileSync(file, "utf8")) as { checks: CheckJson[] };
  return report.checks[0];
}

/** Everything needed to see why a run went wrong, as the assertion message. */
function diagnose(run: ContractRun): string {
  const agentStderr = run.runDir
    ? readTail(path.join(run.runDir, "checks", `${safeStem(CHECK_ID)}.stderr.txt`))
    : "";
  const agentStdout = run.runDir
    ? readTail(path.join(run.runDir, "checks", `${safeStem(CHECK_ID)}.stdout.txt`))
    : "";
  const requests = run.records
    .map((r) => `  #${r.index} ${r.method} ${r.url} ${r.role} ${JSON.stringify(r.decision)}`)
    .join("\n");
  return [
    `eb exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s; files kept in ${run.root}`,
    `eb stdout:\n${run.stdout.slice(-3000)}`,
    `eb stderr:\n${run.stderr.slice(-3000)}`,
    `check: ${JSON.stringify(run.check ?? null)?.slice(0, 3000)}`,
    `agent stdout (tail):\n${agentStdout}`,
    `agent stderr (tail):\n${agentStderr}`,
    `mock requests (${run.logFile}):\n${requests}`,
  ].join("\n");
}

function readTail(file: string, chars = 3000): string {
  return existsSync(file) ? readFileSync(file, "utf8").slice(-chars) : "(none)";
}

/** Where the agent's executable is: the pinned install, or a folder with the fake's launcher. */
export function agentBinDir(setup: AgentSetup): string {
  const { cli } = setup;
  if (!("script" in cli)) return binDir(cli);
  const dir = path.join(os.tmpdir(), `eb-agents-fake-${process.pid}`, cli.agent);
  const launcher = path.join(dir, cli.bin);
  if (!existsSync(launcher)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      launcher,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli.script)} "$@"\n`,
      { mode: 0o755 },
    );
  }
  return dir;
}

/** `<cli> --version`, run the way the contract runs it (own HOME, the pinned bin on PATH). */
function cliVersion(setup: AgentSetup): Promise<string> {
  const home = mkdtempSync(path.join(os.tmpdir(), `eb-agent-version-`));
  const bin = path.join(agentBinDir(setup), setup.cli.bin);
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      ["--version"],
      {
        cwd: home,
        timeout: 60_000,
        env: {
          ...cleanEnv(),
          HOME: home,
          PATH: `${agentBinDir(setup)}${path.delimiter}${process.env.PATH ?? ""}`,
        },
      },
      (error, stdout, stderr) => {
        rmSync(home, { recursive: true, force: true });
        // pi prints its version on stderr; codex may print warnings there.
        const lines = `${stdout}\n${stderr}`.split("\n").map((line) => line.trim());
        const text = lines.find((line) => line.includes(setup.cli.version)) ?? lines.join(" ");
        if (error || !text.includes(setup.cli.version)) {
          reject(
            new Error(
              `${bin} --version did not report ${setup.cli.version}: ${text} ${stderr} ${error?.message ?? ""}`,
            ),
          );
        } else resolve(text);
      },
    );
  });
}
