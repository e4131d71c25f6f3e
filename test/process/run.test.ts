import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/run.js";

const node = process.execPath;
const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-proc-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function nodeScript(code: string, extra: Partial<Parameters<typeof runProcess>[0]> = {}) {
  return runProcess({
    command: node,
    args: ["-e", code],
    cwd: os.tmpdir(),
    env: process.env,
    ...extra,
  });
}

describe("runProcess", () => {
  it("streams all of a large stdout to its file and keeps only a bounded tail", async () => {
    const dir = tmp();
    const file = path.join(dir, "out.txt");
    const mb = 50;
    const result = await nodeScript(
      `const chunk = "x".repeat(1 << 20); for (let i = 0; i < ${mb}; i++) process.stdout.write(chunk); process.stdout.write("END");`,
      { stdoutFile: file, keepChars: 100 },
    );
    expect(result.exitCode).toBe(0);
    expect(statSync(file).size).toBe(mb * (1 << 20) + 3);
    expect(result.stdoutChars).toBe(mb * (1 << 20) + 3);
    expect(result.stdout).toHaveLength(100);
    expect(result.stdout.endsWith("END")).toBe(true);
    expect(result.stdoutTruncated).toBe(true);
  });

  it("decodes invalid UTF-8 with replacement characters instead of failing", async () => {
    const result = await nodeScript(
      "process.stdout.write(Buffer.from([0x61, 0xff, 0xfe, 0x62, 0xe2, 0x82]))",
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith("a")).toBe(true);
    expect(result.stdout).toContain("\uFFFD");
  });

  it("closes stdin unless input is given, and delivers input when it is", async () => {
    const read =
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify(s)))";
    expect((await nodeScript(read)).stdout.trim()).toBe('""');
    expect((await nodeScript(read, { stdin: "hello" })).stdout.trim()).toBe('"hello"');
  });

  it("does not wait for a grandchild that keeps the pipes open after the leader exits", async () => {
    const started = Date.now();
    const result = await nodeScript(
      "require('child_process').spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 30000)'], { stdio: 'inherit', detached: true }).unref(); console.log('leader done')",
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("leader done\n");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("kills the whole process group on timeout, including children that ignore SIGTERM", async () => {
    const dir = tmp();
    const pidFile = path.join(dir, "child.pid");
    const started = Date.now();
    const result = await nodeScript(
      `const c = require('child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' }); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);`,
      // Long enough for both processes to start on a loaded machine before the timeout hits.
      { timeoutMs: 3000 },
    );
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(12_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(false);
    // 3 s timeout + 2 s grace before KILL: past vitest's default 5 s.
  }, 15_000);

  it("reports a program that cannot start as a spawn error, not a throw", async () => {
    const result = await runProcess({
      command: "/no/such/program",
      args: [],
      cwd: os.tmpdir(),
      env: {},
    });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toContain("ENOENT");
  });

  it("stops the process when the signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await nodeScript("setInterval(() => {}, 1000)", { signal: controller.signal });
    expect(result.aborted).toBe(true);
    expect(result.signal).toBe("SIGTERM");
  });
});

/** Alive and not a zombie waiting for PID 1. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe("lastCodePoints", () => {
  it("keeps whole surrogate pairs and exactly the last n characters", async () => {
    const { lastCodePoints } = await import("../../src/process/tail.js");
    expect(lastCodePoints("ab🍌c🍌", 3)).toBe("🍌c🍌");
    expect(lastCodePoints("ab🍌c🍌", 10)).toBe("ab🍌c🍌");
    expect(lastCodePoints("abc", 0)).toBe("");
  });
});
