import { cpSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { makeProject, runEb } from "../helpers/project.js";

/** The banana skill's project, its fake agents and its loopback judge, for eb skill run's tests. */
export const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/skills");

/**
 * The judge: it reads the RESPONSE section of the prompt (the agent's answer, tool calls and
 * changed files) and passes the expectation only when what it asks for is there.
 */
function judge(prompt: string): string {
  const response = prompt.slice(
    prompt.indexOf("\nRESPONSE:\n"),
    prompt.lastIndexOf("\nCRITERIA:\n"),
  );
  const criterion = prompt.slice(prompt.lastIndexOf("\nCRITERIA:\n"));
  const pass = criterion.includes("mentions report.txt")
    ? /FINAL ANSWER:\n.*report\.txt/.test(response)
    : /FILES CREATED OR CHANGED[\s\S]*\nBANANA-SKILL-OK/.test(response);
  const reason = pass ? "report.txt starts with the marker" : "no marker in report.txt";
  return `{"score": ${pass ? 1 : 0}, "reason": "${reason}"}`;
}

let server: LoopbackServer;

/** Starts the loopback judge for the file's tests (and stops it after them). */
export function useJudge(): { readonly server: LoopbackServer } {
  beforeAll(async () => {
    server = await startLoopbackServer((request) => ({
      body: completion(judge(lastContent(request)), "judge-m-2026"),
    }));
  });
  afterAll(() => server.close());
  return {
    get server() {
      return server;
    },
  };
}

/** A project holding the banana skill, and a `claude` and a `codex` on PATH that are the fake. */
export function project(): { root: string; env: NodeJS.ProcessEnv } {
  const root = makeProject();
  cpSync(path.join(FIXTURES, "banana-skill"), path.join(root, "banana-skill"), { recursive: true });
  const bin = path.join(root, "bin");
  const fake = path.join(bin, "fake-skill-agent.mjs");
  cpSync(path.join(FIXTURES, "fake-skill-agent.mjs"), fake);
  for (const cli of ["claude", "codex"]) symlinkSync(fake, path.join(bin, cli));
  return { root, env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` } };
}

/** `eb skill run` of the banana skill with the fake claude (or `--agent` in extra), into `root/<out>/`. */
export function skillRun(root: string, env: NodeJS.ProcessEnv, extra: string[] = [], out = "out") {
  const agent = extra.includes("--agent") ? [] : ["--agent", "claude"];
  const args = ["skill", "run", "banana-skill", ...agent, "--judge", "judge-m"];
  return runEb([...args, "--api-base", server.baseURL, "--out", out, "--cwd", root, ...extra], {
    cwd: root,
    env,
    timeoutMs: 120_000,
  });
}

/** The one skill run folder under `root/<out>/`. */
export function runFolder(root: string, out = "out"): string {
  const [folder] = readdirSync(path.join(root, out));
  return path.join(root, out, folder!);
}

export interface Row {
  id: string;
  status: string;
  reason: string | null;
  marks: Record<string, boolean>;
  skill: { sha256: string | null; used: boolean | null; tool_calls: number; files: string[] };
}

export function json(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}
