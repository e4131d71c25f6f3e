import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/errors.js";
import { splitCommand } from "../../src/model/argv.js";
import { createCache } from "../../src/model/cache.js";
import { createCommandTarget } from "../../src/model/command-target.js";
import type { CaseInput } from "../../src/model/types.js";

const fixtures = join(import.meta.dirname, "../fixtures/cases");
const node = JSON.stringify(process.execPath);
const input: CaseInput = {
  id: "c1",
  stratum: "typical",
  messages: [{ role: "user", content: "ping 'quoted' \"double\"" }],
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eb-command-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("splitCommand", () => {
  it("splits on whitespace and honours quotes and backslashes, without a shell", () => {
    expect(splitCommand("  node app.mjs  --x=1 ")).toEqual(["node", "app.mjs", "--x=1"]);
    expect(splitCommand(`py 'a b' "c \\"d\\" $e" f\\ g ''`)).toEqual([
      "py",
      "a b",
      'c "d" $e',
      "f g",
      "",
    ]);
    expect(splitCommand(`x 'it'"'"'s' a"b"c`)).toEqual(["x", "it's", "abc"]);
  });
  it("rejects an empty command and an unterminated quote", () => {
    expect(() => splitCommand("   ")).toThrow(InputError);
    expect(() => splitCommand("node 'app.mjs")).toThrow(/unterminated ' quote/);
  });
});

describe("createCommandTarget", () => {
  it("sends the case as JSON on stdin and returns stdout", async () => {
    const target = createCommandTarget({
      command: `${node} echo-target.mjs`,
      cwd: fixtures,
      timeoutMs: 5000,
      cache: null,
    });
    const result = await target.complete(input, 2);
    expect(result.text).toBe(`echo: ping 'quoted' "double" (case c1, stratum typical, sample 2)`);
    expect(result.cached).toBe(false);
    expect(result.model).toBe(`${node} echo-target.mjs`);
  });

  it("reports a non-zero exit with its code and the last stderr line", async () => {
    const target = createCommandTarget({
      command: `${node} fail-target.mjs`,
      cwd: fixtures,
      timeoutMs: 5000,
      cache: null,
    });
    await expect(target.complete(input, 0)).rejects.toThrow(
      /exited with code 3: fatal: model file not found$/,
    );
  });

  it("times out a command that never answers", async () => {
    const target = createCommandTarget({
      command: `${node} hang-target.mjs`,
      cwd: fixtures,
      timeoutMs: 300,
      cache: null,
    });
    await expect(target.complete(input, 0)).rejects.toThrow(/timed out after 0\.3s$/);
  });

  it("reports a program that cannot start", async () => {
    const target = createCommandTarget({
      command: "./no-such-program-here",
      cwd: fixtures,
      cache: null,
    });
    await expect(target.complete(input, 0)).rejects.toThrow(/could not start: .*ENOENT/);
  });

  it("is cached per sample when given a cache", async () => {
    const cache = createCache(join(dir, "cache"));
    const options = { command: `${node} echo-target.mjs`, cwd: fixtures, cache };
    const first = await createCommandTarget(options).complete(input, 0);
    const again = await createCommandTarget(options).complete(input, 0);
    const other = await createCommandTarget(options).complete(input, 1);
    expect(again).toEqual({ ...first, cached: true });
    expect(other.cached).toBe(false);
    expect(other.text).toMatch(/sample 1\)$/);
  });
});
