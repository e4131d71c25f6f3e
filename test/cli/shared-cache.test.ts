import { cpSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type LoopbackServer, startLoopbackServer } from "../helpers/loopback-server.js";
import { makeProject, runEb } from "../helpers/project.js";

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
});

function cases(count: number): string {
  return Array.from(
    { length: count },
    (_, n) =>
      `${JSON.stringify({
        id: `case-${n}`,
        messages: [{ role: "user", content: `question ${n}` }],
        graders: [{ type: "contains", all: ["echo"] }],
      })}\n`,
  ).join("");
}

const evalArgs = (k: number, cacheDir: string, more: string[]) => [
  "eval",
  "cases.jsonl",
  "-m",
  "mock",
  "--api-base",
  server.baseURL,
  "-k",
  String(k),
  "--cache-dir",
  cacheDir,
  ...more,
];

/** The rows of the newest run folder under `root/dir`. */
function rowsIn(root: string, dir: string): { cached: boolean }[] {
  const runs = readdirSync(path.join(root, dir)).sort();
  const text = readFileSync(path.join(root, dir, runs.at(-1)!, "rows.jsonl"), "utf8");
  return text
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as { cached: boolean });
}

describe("a cache shared by the shards of several machines", () => {
  it("grown by two machines from one restored cache, then copied into one, answers a re-run without a call", async () => {
    const root = makeProject({ "cases.jsonl": cases(10) });
    // What CI restores on both machines: a cache of an earlier run (sample 0 of every case).
    expect((await runEb(evalArgs(1, "restored", ["--out", "base"]), { cwd: root })).code).toBe(0);
    expect(server.requests).toHaveLength(10);
    for (const machine of ["machine-1", "machine-2"]) {
      cpSync(path.join(root, "restored"), path.join(root, machine), { recursive: true });
    }
    // Each machine runs its shard at k = 3: samples 1 and 2 of its cases are new.
    for (const [index, machine] of ["machine-1", "machine-2"].entries()) {
      const shard = ["--shard", `${index + 1}/2`, "--out", `out-${index + 1}`];
      expect((await runEb(evalArgs(3, machine, shard), { cwd: root })).code).toBe(0);
    }
    expect(server.requests).toHaveLength(10 + 20);
    // The job that saves the cache copies both machines' folders into one, as downloading
    // their artifacts into one path does.
    for (const machine of ["machine-1", "machine-2"]) {
      cpSync(path.join(root, machine), path.join(root, "saved"), { recursive: true });
    }
    const packs = readdirSync(path.join(root, "saved", "packs"));
    expect(packs.length).toBe(3);
    const before = server.requests.length;
    const rerun = await runEb(evalArgs(3, "saved", ["--out", "rerun"]), { cwd: root });
    expect(rerun.code).toBe(0);
    expect(server.requests.length).toBe(before);
    const rows = rowsIn(root, "rerun");
    expect(rows).toHaveLength(30);
    expect(rows.every((row) => row.cached)).toBe(true);
  });
});
