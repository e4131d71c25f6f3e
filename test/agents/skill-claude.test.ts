import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { runEb, sortedRows } from "../helpers/project.js";
import { PASS_VERDICT } from "./mocks/common.js";
import { AGENTS } from "./support/agents.js";
import { ebEnv } from "./support/contract.js";
import { banner, ensureInstalledAlone, type InstallOutcome, log } from "./support/install.js";

const setup = AGENTS.claude!;
const SKILL = "release-token";
const TIMEOUT_SECONDS = 180;

/**
 * `eb skill run` with the real claude CLI against the loopback Anthropic mock: the mock makes
 * claude read the installed skill's SKILL.md with its Read tool (the path found in the request:
 * claude names its working folder there), and answers the verdict only when the file's token
 * came back. So the with-skill arm's answer depends on the skill, and the transcript parser must
 * see the Read of `<name>/SKILL.md` in claude's real stream-json.
 */
describe(`eb skill run with the real claude (${setup.cli.pkg}@${setup.cli.version})`, () => {
  let install: InstallOutcome = { status: "offline", message: "not installed yet" };
  let judge: LoopbackServer;
  beforeAll(async () => {
    install = await ensureInstalledAlone("claude");
    // The judge passes the expectation when the agent's final answer is the mock's verdict.
    judge = await startLoopbackServer((request) => {
      const found = lastContent(request).includes("evidence token found");
      const reason = found ? "the answer reports the token" : "no token reported";
      return { body: completion(`{"score": ${found ? 1 : 0}, "reason": "${reason}"}`, "judge-m") };
    });
  });
  afterAll(() => judge?.close());

  it("reads SKILL.md with its Read tool in the with-skill arm, and eb sees it in the transcript", async (ctx) => {
    if (install.status === "offline") {
      banner(`claude is not installed and ${install.message.split("\n")[0]}`);
      ctx.skip(install.message);
    }
    const root = mkdtempSync(path.join(os.tmpdir(), "eb-agent-skill-claude-"));
    const keep = () => log(`skill-claude: kept ${root}`);
    const token = `BANANA-${randomBytes(8).toString("hex")}`;
    const project = path.join(root, "project");
    const home = path.join(root, "home");
    for (const dir of [project, home]) mkdirSync(dir, { recursive: true });
    const skillDir = path.join(project, SKILL);
    write(
      path.join(skillDir, "SKILL.md"),
      `---\nname: ${SKILL}\ndescription: Tells the release token. Use when asked for the release token.\n---\n\nThe release token is ${token}.\n`,
    );
    write(
      path.join(skillDir, "evals", "evals.json"),
      JSON.stringify({
        skill_name: SKILL,
        evals: [
          {
            id: 0,
            prompt: "What is the release token? Use the release-token skill.",
            expectations: ["The answer reports that the evidence token was found"],
          },
        ],
      }),
    );
    // The workspace eb makes for a sample: <tmp>/eb-skill-XXXXXX; claude names it in its request.
    const workspace = /(\/[^\s"'\\]*\/eb-skill-[A-Za-z0-9]{6})\b/;
    const mock = await setup.startMock({
      token,
      evidencePath: path.join(project, "no-such-file"),
      logDir: path.join(root, "mock"),
      evidenceFrom: (body) => {
        const dir = workspace.exec(body)?.[1];
        return dir === undefined ? null : path.join(dir, ".claude", "skills", SKILL, "SKILL.md");
      },
    });
    try {
      const harness = {
        agent: "claude",
        model: setup.model,
        timeout_seconds: TIMEOUT_SECONDS,
        env: setup.prepare({ home, project, mockUrl: mock.url }),
      };
      write(path.join(project, ".eval-banana", "config.toml"), `${stringify({ harness })}\n`);
      const args = ["skill", "run", SKILL, "--judge", "judge-m", "--api-base", judge.baseURL];
      const result = await runEb([...args, "--cwd", project], {
        cwd: project,
        env: ebEnv(setup),
        timeoutMs: (TIMEOUT_SECONDS * 2 + 60) * 1000,
      });
      const why = `eb exit ${result.code}\n${result.stdout}\n${result.stderr}\nmock log ${mock.logFile}`;
      const results = path.join(project, ".eval-banana", "results");
      const folder = path.join(results, readdirSync(results)[0]!);
      const [withRow] = sortedRows<{
        id: string;
        status: string;
        skill: { used: boolean; tool_calls: number; tokens: number | null };
      }>(path.join(folder, "with_skill"));
      const [withoutRow] = sortedRows<{ id: string; status: string }>(
        path.join(folder, "without_skill"),
      );
      expect(withRow, why).toMatchObject({ status: "passed", skill: { used: true } });
      expect(withRow!.skill.tool_calls, why).toBeGreaterThanOrEqual(1);
      expect(withRow!.skill.tokens, why).toBeGreaterThan(0);
      expect(withoutRow, why).toMatchObject({ status: "failed" });
      expect(result.stdout, why).toContain("Skill not used: 0 of 1");
      // The Read call in claude's own stream-json, and the verdict that came back as its answer.
      const transcript = readFileSync(
        path.join(folder, "with_skill", "eval-0", "run-1", "transcript.jsonl"),
        "utf8",
      );
      expect(transcript, why).toMatch(
        new RegExp(`"name":"Read","input":\\{"file_path":"[^"]*${SKILL}/SKILL\\.md"`),
      );
      expect(transcript, why).toContain(JSON.stringify(PASS_VERDICT).slice(1, -1));
      const read = mock.records.filter((r) => r.toolResults.some((t) => t.includes(token)));
      expect(read.length, `${why}\nno tool result held the token`).toBeGreaterThan(0);
      log(`skill-claude: ${result.stdout.split("\n").slice(1, 5).join(" | ")}`);
      if (process.env.EVAL_BANANA_AGENTS_KEEP === "1") keep();
      else rmSync(root, { recursive: true, force: true });
    } catch (error) {
      keep();
      throw error;
    } finally {
      await mock.close();
    }
  });
});

function write(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}
