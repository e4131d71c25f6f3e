import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "./loopback-server.js";
import { makeProject, rightCases, runEb, runFolders, spawnEb } from "./project.js";

// What the tests of eb eval's arms share: their cases, their runs and their endpoint.

/** 20 cases, 8 of them ("w…") answered wrong by the bad arm. */
export const IDS = [
  ...Array.from({ length: 8 }, (_, i) => `w${i}`),
  ...Array.from({ length: 12 }, (_, i) => `c${i}`),
];

export function evalIn(root: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return runEb(["eval", "cases.jsonl", ...args], { cwd: root, env });
}

/** Cases for models "good" and "twin", priced at $1000 per million answer tokens. */
export function pricedProject(inputPerMtok: string): string {
  const prices = ["good", "twin"].map(
    (model) => `[pricing."${model}"]\ninput_per_mtok = ${inputPerMtok}\noutput_per_mtok = 1000.0\n`,
  );
  return makeProject({
    "cases.jsonl": rightCases(IDS),
    ".eval-banana/config.toml": prices.join("\n"),
  });
}

/** `--target A --target B …`: one arm per command. */
export function targets(...commands: string[]): string[] {
  return commands.flatMap((command) => ["--target", command]);
}

/**
 * Runs eb eval with a "hold" file in the project until `ready` says the arms' rows are far
 * enough, interrupts it (exit 130, a hint with --resume once per arm), removes the hold and runs
 * the hint's command.
 */
export async function interruptAndResume(
  root: string,
  args: readonly string[],
  ready: (rows: number[]) => boolean,
) {
  writeFileSync(path.join(root, "hold"), "");
  const running = spawnEb(["eval", "cases.jsonl", ...args], { cwd: root });
  // A run folder is made before its rows file: until then it has no rows.
  const rowsOf = (dir: string) => {
    const file = path.join(dir, "rows.jsonl");
    return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").length - 1 : 0;
  };
  while (results(root).length < 2 || !ready(results(root).map(rowsOf))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  running.child.kill("SIGINT");
  expect(await running.exited).toBe(130);
  const [first, second] = results(root);
  expect(running.stderr()).toContain(`--resume ${first} --resume ${second}`);
  rmSync(path.join(root, "hold"));
  return evalIn(root, [...args, "--resume", first!, "--resume", second!]);
}

export function results(root: string): string[] {
  const dir = path.join(root, ".eval-banana/results");
  return existsSync(dir) ? runFolders(dir) : [];
}

/** The case ids of a run folder's rows, one per row. */
export function rowIds(runDir: string): string[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trim().split("\n");
  return lines.slice(1).map((line) => JSON.parse(line).id);
}

export function reportOf(runDir: string) {
  return JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
}

/** An endpoint: model "bad" answers wrong to the "w…" cases, "locked" is refused, any other right. */
export function startArmsServer(): Promise<LoopbackServer> {
  return startLoopbackServer((request) => {
    const model = (request.json as { model?: string }).model;
    if (model === "locked") return { status: 401, body: { error: { message: "bad key" } } };
    const wrong = model === "bad" && lastContent(request).startsWith("question w");
    return { body: completion(wrong ? "wrong" : "right", model) };
  });
}
