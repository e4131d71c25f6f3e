import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { Tail } from "./tail.js";

export interface ProcessSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment (the caller decides what it inherits). */
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Written to the child's stdin, then closed; undefined = stdin closed from the start. */
  stdin?: string;
  /** Full stream goes here (file created only when the stream is non-empty). */
  stdoutFile?: string;
  stderrFile?: string;
  /** How many trailing characters of each stream are kept in memory (default 2000). */
  keepChars?: number;
  signal?: AbortSignal;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  spawnError: string | null;
  stdout: string;
  stdoutChars: number;
  stdoutTruncated: boolean;
  stderr: string;
  stderrChars: number;
  stderrTruncated: boolean;
  ms: number;
}

/** Time between SIGTERM and SIGKILL for the process group. */
const KILL_GRACE_MS = 2000;
/** After the process exits, pipes with no data for this long are closed (see the exit handler). */
const PIPE_IDLE_MS = 1000;

/**
 * Runs one process without a shell, in its own process group, streaming stdout/stderr to files
 * and keeping only a bounded tail in memory. Never throws: failures are in the result.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const started = performance.now();
  const keep = spec.keepChars ?? 2000;
  const out = new Capture(keep, spec.stdoutFile);
  const err = new Capture(keep, spec.stderrFile);
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: [spec.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve(failedToStart(error, started));
      return;
    }
    let timedOut = false;
    let aborted = false;
    let spawnError: string | null = null;
    const group = new GroupKiller(child);
    const timer =
      spec.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            group.kill();
          }, spec.timeoutMs);
    const onAbort = () => {
      aborted = true;
      group.kill();
    };
    if (spec.signal?.aborted) onAbort();
    spec.signal?.addEventListener("abort", onAbort, { once: true });

    if (child.stdout) out.attach(child.stdout);
    if (child.stderr) err.attach(child.stderr);
    if (child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(spec.stdin);
    }
    child.on("error", (error) => {
      spawnError = error.message;
    });
    let exit: { code: number | null; signal: string | null } | undefined;
    let settled = false;
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      group.dispose();
      spec.signal?.removeEventListener("abort", onAbort);
      await Promise.all([out.close(), err.close()]);
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        aborted,
        spawnError: exit ? null : spawnError,
        stdout: out.tail.text(),
        stdoutChars: out.tail.chars,
        stdoutTruncated: out.tail.truncated,
        stderr: err.tail.text(),
        stderrChars: err.tail.chars,
        stderrTruncated: err.tail.truncated,
        ms: Math.floor(performance.now() - started),
      });
    };
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      group.leaderExited();
      // A grandchild may hold our pipes open forever: stop reading once they fall idle.
      const watch = setInterval(() => {
        if (out.busy(PIPE_IDLE_MS) || err.busy(PIPE_IDLE_MS)) return;
        clearInterval(watch);
        child.stdout?.destroy();
        child.stderr?.destroy();
        void finish();
      }, PIPE_IDLE_MS / 4);
      watch.unref();
      child.once("close", () => clearInterval(watch));
    });
    child.on("close", () => void finish());
  });
}

function failedToStart(error: unknown, started: number): ProcessResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    spawnError: error instanceof Error ? error.message : String(error),
    stdout: "",
    stdoutChars: 0,
    stdoutTruncated: false,
    stderr: "",
    stderrChars: 0,
    stderrTruncated: false,
    ms: Math.floor(performance.now() - started),
  };
}

/** SIGTERM to the whole group, SIGKILL after a grace period. */
class GroupKiller {
  private graceTimer: NodeJS.Timeout | undefined;
  constructor(private readonly child: ChildProcess) {}

  kill(): void {
    if (this.graceTimer) return;
    this.signal("SIGTERM");
    this.graceTimer = setTimeout(() => this.signal("SIGKILL"), KILL_GRACE_MS);
  }

  /** Once a killed leader is gone, what is left of its group gets no more grace. */
  leaderExited(): void {
    if (this.graceTimer) this.signal("SIGKILL");
  }

  dispose(): void {
    // Children that ignored SIGTERM may still be alive after the leader exited.
    if (this.graceTimer) this.signal("SIGKILL");
    clearTimeout(this.graceTimer);
  }

  private signal(name: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, name);
    } catch {
      // The group is already gone.
    }
  }
}

/** One output stream: the full bytes to a file (opened lazily), a bounded tail in memory. */
class Capture {
  readonly tail: Tail;
  private file: WriteStream | undefined;

  constructor(
    keepChars: number,
    private readonly path: string | undefined,
  ) {
    this.tail = new Tail(keepChars);
  }

  private lastData = performance.now();
  private paused = false;

  /** True while data still flows (or waits for the file) within the last `idleMs`. */
  busy(idleMs: number): boolean {
    return this.paused || performance.now() - this.lastData < idleMs;
  }

  /** Reads the stream; pauses it while the file lags, so memory stays bounded. */
  attach(stream: Readable): void {
    stream.on("data", (chunk: Buffer) => {
      this.lastData = performance.now();
      this.tail.push(chunk);
      if (!this.path) return;
      this.file ??= createWriteStream(this.path);
      if (this.file.write(chunk)) return;
      stream.pause();
      this.paused = true;
      this.file.once("drain", () => {
        this.paused = false;
        this.lastData = performance.now();
        stream.resume();
      });
    });
  }

  close(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    return new Promise((resolve) => {
      file.on("error", () => resolve());
      file.end(() => resolve());
    });
  }
}
