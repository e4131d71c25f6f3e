import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, type CliResult, cleanEnv } from "../helpers/project.js";
import { echoAfter, type FaultServer } from "./fault-server.js";
import {
  cachePacks,
  caseLine,
  casesProject,
  countBy,
  evalAt,
  expectAllRows,
  expectWholeEntries,
  KEY,
  readRun,
} from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Like evalAt, but started at once so that two runs can overlap. */
function startEval(root: string, baseURL: string, out: string): Promise<CliResult> {
  const args = ["eval", "cases.jsonl", "-m", "mock", "--api-base", baseURL, "-k", "2"];
  const child = spawn(process.execPath, [CLI, ...args, "--out", out, "--flat-output"], {
    cwd: root,
    env: { ...cleanEnv(), EVAL_BANANA_API_KEY: KEY },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr })),
  );
}

const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
const lines = ids.map((id) => caseLine(id, `question ${id}`));

describe("the answer cache under concurrent and broken use", () => {
  it("two runs sharing one cache at once: no torn entry, both complete with all rows", async () => {
    // Entries of ~300 KB: a write that is not atomic would be caught half done.
    server = await echoAfter(40, 300_000);
    const root = casesProject(lines);
    const [a, b] = await Promise.all([
      startEval(root, server.baseURL, "run-a"),
      startEval(root, server.baseURL, "run-b"),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stderr + b.stderr).not.toMatch(/cache write/);
    for (const out of ["run-a", "run-b"]) {
      const { rows } = readRun(path.join(root, out));
      expectAllRows(rows, ids, 2);
      expect(rows.every((r) => r.status === "passed")).toBe(true);
    }
    expect(expectWholeEntries(root)).toHaveLength(ids.length * 2);
    // A third run finds everything and asks nothing.
    const before = server.requests.length;
    const third = await evalAt(root, server.baseURL, ["-k", "2"]);
    expect(third.code).toBe(0);
    expect(server.requests.length).toBe(before);
  }, 60_000);

  it("treats truncated, empty, garbage or torn entries as misses and writes them again", async () => {
    server = await echoAfter(0);
    const root = casesProject(lines.slice(0, 6));
    const first = await evalAt(root, server.baseURL, [], {}, 60_000);
    expect(first.code).toBe(0);
    expect(expectWholeEntries(root)).toHaveLength(6);
    const [pack] = cachePacks(root);
    const entries = readFileSync(pack as string, "utf8")
      .slice(0, -1)
      .split("\n");
    const key = (i: number) => (entries[i] as string).slice(0, 65);
    const damaged = [
      entries[0]?.slice(0, 120),
      `${key(1)}`,
      `${key(2)}\u00ff\u0000\u00fe{`,
      entries[3],
      entries[4],
      // What a run killed in mid-write leaves: a last line without its newline.
      entries[5]?.slice(0, 100),
    ];
    writeFileSync(pack as string, damaged.join("\n"));

    const before = server.requests.length;
    const second = await evalAt(root, server.baseURL, ["--out", "again"], {}, 60_000);
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.length - before).toBe(4);
    const { rows } = readRun(path.join(root, "again"));
    expect(countBy(rows, (r) => String(r.cached))).toEqual(
      new Map([
        ["false", 4],
        ["true", 2],
      ]),
    );
    expect(rows.every((r) => r.status === "passed" && r.text?.startsWith("echo: "))).toBe(true);
    const third = await evalAt(root, server.baseURL, ["--out", "third"], {}, 60_000);
    expect(third.code, third.stderr).toBe(0);
    expect(server.requests.length - before).toBe(4);
  }, 60_000);
});
