import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/run.js";
import { createScrubber } from "../../src/secrets/scrubber.js";
import { alive, killPidIn } from "../helpers/pids.js";

const node = process.execPath;
const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-proc-"));
  dirs.push(dir);
  return dir;
};
/** Files holding the pid of a process a test started outside our process group. */
const pidFiles: string[] = [];
/** tmpfs mount points, unmounted before their folders are removed. */
const mounts: string[] = [];
afterEach(() => {
  for (const file of pidFiles.splice(0)) killPidIn(file);
  for (const dir of mounts.splice(0)) execFileSync("umount", [dir]);
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
    const pidFile = path.join(tmp(), "grandchild.pid");
    pidFiles.push(pidFile);
    const started = Date.now();
    const result = await nodeScript(
      `const c = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 30000)'], { stdio: 'inherit', detached: true }); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); c.unref(); console.log('leader done')`,
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
    // The group's SIGKILL is sent when the leader is; the child's exit may land a moment later.
    expect(await goneWithin(pid, 2000)).toBe(true);
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

/**
 * A leader whose child calls setsid() (Node's `detached`), so it leaves our process group, and
 * writes to the inherited stdout forever, ignoring a closed pipe. The leader records the child's
 * pid for the test's cleanup and waits until the child writes, then exits or (with `hang`)
 * waits to be killed.
 */
function startEscapee(
  mode: "exit" | "hang",
  extra: Partial<Parameters<typeof runProcess>[0]> = {},
) {
  const dir = tmp();
  const pidFile = path.join(dir, "escapee.pid");
  pidFiles.push(pidFile);
  const readyFile = path.join(dir, "ready");
  const ready = JSON.stringify(readyFile);
  const escapee = path.join(dir, "escapee.cjs");
  writeFileSync(
    escapee,
    [
      "process.stdout.on('error', () => {});",
      "setInterval(() => process.stdout.write('x'.repeat(80) + '\\n'), 20);",
      `process.stdout.write('first\\n', () => require('fs').writeFileSync(${ready}, ''));`,
    ].join("\n"),
  );
  const leader = [
    "const fs = require('fs');",
    `const c = require('child_process').spawn(process.execPath, [${JSON.stringify(escapee)}], { stdio: 'inherit', detached: true });`,
    `fs.writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));`,
    "c.unref();",
    "const wait = () => {",
    `  if (!fs.existsSync(${ready})) return setTimeout(wait, 10);`,
    "  process.stdout.write('leader saw the escapee write\\n');",
    mode === "hang" ? "  setInterval(() => {}, 1000);" : "",
    "};",
    "wait();",
  ].join("\n");
  const done = nodeScript(leader, { keepChars: 1_000_000, ...extra });
  return { done, readyFile };
}

/** What the leader prints once the escapee has written. */
const SAW_ESCAPEE = "leader saw the escapee write\n";

describe("runProcess with a child that escaped the process group", () => {
  it("ends soon after a timeout even though the escapee keeps writing to the pipe", async () => {
    const started = Date.now();
    const result = await startEscapee("hang", { timeoutMs: 2000 }).done;
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toContain(SAW_ESCAPEE);
    expect(Date.now() - started).toBeLessThan(2000 + 4000);
  });

  it("ends soon after the leader exits even though the escapee keeps writing", async () => {
    const started = Date.now();
    const result = await startEscapee("exit").done;
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout).toContain(SAW_ESCAPEE);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("ends soon after an abort even though the escapee keeps writing", async () => {
    const controller = new AbortController();
    const { done, readyFile } = startEscapee("hang", { signal: controller.signal });
    await until(() => existsSync(readyFile));
    const aborted = Date.now();
    controller.abort();
    expect((await done).aborted).toBe(true);
    expect(Date.now() - aborted).toBeLessThan(4000);
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Prints `x` lines (`kb` KiB) and END to stdout, `ok` to stderr. */
const PRINT_KB = (kb: number) =>
  `for (let i = 0; i < ${kb}; i++) process.stdout.write('x'.repeat(1023) + '\\n'); process.stdout.write('END'); process.stderr.write('ok');`;

describe("runProcess when a stream file cannot be written", () => {
  it("stops writing a file on a full disk (/dev/full), keeps the tail and reports it", async () => {
    const result = await nodeScript(PRINT_KB(1024), { stdoutFile: "/dev/full", keepChars: 3 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("END");
    expect(result.stdoutChars).toBe(1024 * 1024 + 3);
    expect(result.stderr).toBe("ok");
    expect(result.writeError).toBe("could not write /dev/full: ENOSPC (no space left on device)");
  });

  it("keeps what fit on a disk that fills up mid-stream (64 KiB tmpfs)", async (context) => {
    const mountPoint = tmpfs(64);
    if (!mountPoint) {
      console.warn("SKIPPED: cannot mount a tmpfs here (needs root); /dev/full covers ENOSPC");
      context.skip();
      return;
    }
    const file = path.join(mountPoint, "out.txt");
    const result = await nodeScript(PRINT_KB(1024), { stdoutFile: file, keepChars: 3 });
    expect(result).toMatchObject({ exitCode: 0, stdout: "END", stderr: "ok" });
    expect(result.writeError).toBe(`could not write ${file}: ENOSPC (no space left on device)`);
    const kept = statSync(file).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(64 * 1024);
  });

  it("reports a stream file that cannot be opened, and still runs the process", async () => {
    const missing = path.join(tmp(), "no-such-dir", "err.txt");
    const result = await nodeScript(PRINT_KB(1), { stderrFile: missing });
    expect(result).toMatchObject({ exitCode: 0, stderr: "ok" });
    expect(result.writeError).toBe(
      `could not write ${missing}: ENOENT (no such file or directory)`,
    );
  });

  it("reports no write error when the files are written", async () => {
    const dir = tmp();
    const result = await nodeScript(PRINT_KB(1), {
      stdoutFile: path.join(dir, "out.txt"),
      stderrFile: path.join(dir, "err.txt"),
    });
    expect(result.writeError).toBeNull();
    expect(readFileSync(path.join(dir, "err.txt"), "utf8")).toBe("ok");
  });
});

/** A fresh tmpfs of `kb` KiB (unmounted after the test), or null when mounting is not allowed. */
function tmpfs(kb: number): string | null {
  const dir = tmp();
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kb}k`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}

describe("runProcess with a scrubber", () => {
  it("redacts a secret split across two writes, in the files and the tails", async () => {
    const dir = tmp();
    const secret = "sk-live-0123456789";
    const [head, rest] = [secret.slice(0, 9), secret.slice(9)];
    const code = `for (const s of [process.stdout, process.stderr]) s.write('key=${head}'); setTimeout(() => { for (const s of [process.stdout, process.stderr]) s.write('${rest} ok\\n'); }, 300);`;
    const result = await nodeScript(code, {
      stdoutFile: path.join(dir, "out.txt"),
      stderrFile: path.join(dir, "err.txt"),
      scrubber: createScrubber([secret]),
    });
    const files = [
      readFileSync(path.join(dir, "out.txt"), "utf8"),
      readFileSync(path.join(dir, "err.txt"), "utf8"),
    ];
    for (const text of [result.stdout, result.stderr, ...files]) {
      expect(text).toBe("key=[redacted] ok\n");
    }
    expect(result.stdoutChars).toBe("key=[redacted] ok\n".length);
  });

  it("keeps a character whole where the held-back text starts inside a surrogate pair", async () => {
    const file = path.join(tmp(), "out.txt");
    // "SECRET-123" holds back 9 characters: 8 after the banana cuts it in half.
    const code =
      "process.stdout.write('🍌12345678'); setTimeout(() => process.stdout.write('!'), 300);";
    const result = await nodeScript(code, {
      stdoutFile: file,
      scrubber: createScrubber(["SECRET-123"]),
    });
    expect(readFileSync(file, "utf8")).toBe("🍌12345678!");
    expect(result.stdout).toBe("🍌12345678!");
  });

  it("leaves the bytes as they are when the scrubber knows no secrets", async () => {
    const file = path.join(tmp(), "out.txt");
    const bytes = [0x61, 0xff, 0x00, 0x62];
    await nodeScript(`process.stdout.write(Buffer.from(${JSON.stringify(bytes)}))`, {
      stdoutFile: file,
      scrubber: createScrubber([]),
    });
    expect([...readFileSync(file)]).toEqual(bytes);
  });
});

/** Whether `pid` ended (or is a zombie) within `ms`. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("lastCodePoints", () => {
  it("keeps whole surrogate pairs and exactly the last n characters", async () => {
    const { lastCodePoints } = await import("../../src/process/tail.js");
    expect(lastCodePoints("ab🍌c🍌", 3)).toBe("🍌c🍌");
    expect(lastCodePoints("ab🍌c🍌", 10)).toBe("ab🍌c🍌");
    expect(lastCodePoints("abc", 0)).toBe("");
  });
});
