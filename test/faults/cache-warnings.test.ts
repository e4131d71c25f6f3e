/**
 * A cache write that fails costs a call next run, not this run: the run completes, and stderr
 * says how many writes failed and why ("N cache writes under <dir> failed (first: ...)").
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { echoAfter, type FaultServer } from "./fault-server.js";
import { CACHE, caseLine, casesProject, evalAt, expectAllRows, OUT, readRun } from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lines = ["c0", "c1"].map((id) => caseLine(id, `question ${id}`));

describe("cache write failures are reported", () => {
  it("a cache that cannot be written is a warning, not a failed run", async () => {
    server = await echoAfter(0);
    const root = casesProject(lines);
    // A file where the pack folder should be: nothing can be read or written there.
    mkdirSync(path.join(root, CACHE), { recursive: true });
    writeFileSync(path.join(root, CACHE, "packs"), "not a folder");
    const run = await evalAt(root, server.baseURL);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/2 cache writes under .* failed \(first: .+\); those answers/);
    expectAllRows(readRun(path.join(root, OUT)).rows, ["c0", "c1"], 1);
  });
});
