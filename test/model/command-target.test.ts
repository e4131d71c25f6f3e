import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/errors.js";
import { splitCommand } from "../../src/model/argv.js";
import { createCache } from "../../src/model/cache.js";
import { createCommandTarget } from "../../src/model/command-target.js";
import type { CaseInput } from "../../src/model/types.js";
import { alive } from "../helpers/pids.js";

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
      env: process.env,
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
      env: process.env,
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
      env: process.env,
    });
    await expect(target.complete(input, 0)).rejects.toThrow(/timed out after 0\.3s$/);
  });

  it("reports a program that cannot start", async () => {
    const target = createCommandTarget({
      command: "./no-such-program-here",
      cwd: fixtures,
      cache: null,
      env: process.env,
    });
    await expect(target.complete(input, 0)).rejects.toThrow(/could not start: .*ENOENT/);
  });

  it("is cached per sample when given a cache", async () => {
    const cache = createCache(join(dir, "cache"));
    const options = { command: `${node} echo-target.mjs`, cwd: fixtures, cache, env: process.env };
    const first = await createCommandTarget(options).complete(input, 0);
    const again = await createCommandTarget(options).complete(input, 0);
    const other = await createCommandTarget(options).complete(input, 1);
    expect(again).toEqual({ ...first, cached: true });
    expect(other.cached).toBe(false);
    expect(other.text).toMatch(/sample 1\)$/);
  });
});

async function until(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!(await condition()) && performance.now() < end) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("createCommandTarget aborted", () => {
  it("kills the hanging command and what it started, and says it was interrupted", async () => {
    const pids = join(dir, "pids.json");
    // Starts a grandchild, writes both pids, then never answers.
    const script = join(dir, "spawn-and-hang.mjs");
    await writeFile(
      script,
      `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
writeFileSync(process.argv[2], JSON.stringify([process.pid, child.pid]));
setInterval(() => {}, 1000);
`,
    );
    const target = createCommandTarget({
      command: `${node} ${JSON.stringify(script)} ${JSON.stringify(pids)}`,
      cwd: dir,
      timeoutMs: 30_000,
      cache: null,
      env: process.env,
    });
    const controller = new AbortController();
    const call = target.complete(input, 0, controller.signal);
    const started = async () => (await readFile(pids, "utf8").catch(() => "")) !== "";
    await until(started, 5000);
    const [parent, grandchild] = JSON.parse(await readFile(pids, "utf8")) as number[];
    expect(alive(parent as number) && alive(grandchild as number)).toBe(true);
    const abortedAt = performance.now();
    controller.abort();
    await expect(call).rejects.toThrow(/^command ".*" was interrupted$/);
    expect(performance.now() - abortedAt).toBeLessThan(2000);
    expect(alive(parent as number)).toBe(false);
    await until(async () => !alive(grandchild as number), 1000);
    expect(alive(grandchild as number)).toBe(false);
  });

  it("starts nothing once already aborted", async () => {
    const marker = join(dir, "started");
    const script = join(dir, "touch.mjs");
    await writeFile(
      script,
      'import { writeFileSync } from "node:fs";\nwriteFileSync(process.argv[2], "");\n',
    );
    const target = createCommandTarget({
      command: `${node} ${JSON.stringify(script)} ${JSON.stringify(marker)}`,
      cwd: dir,
      cache: null,
      env: process.env,
    });
    await expect(target.complete(input, 0, AbortSignal.abort())).rejects.toThrow(
      /was interrupted$/,
    );
    expect(await readFile(marker).catch(() => null)).toBeNull();
  });
});
