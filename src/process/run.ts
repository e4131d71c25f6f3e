import { type ChildProcess, spawn } from "node:child_process";
import type { Scrubber } from "../secrets/scrubber.js";
import { Capture } from "./capture.js";

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
  /** Replaces secrets in the files and the tails (the text is then written back as UTF-8). */
  scrubber?: Scrubber;
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
  /**
   * Why a stream file stopped being written ("could not write <path>: ENOSPC (no space left on
   * device)"; both files' reasons joined by "; "), or null. The tails are complete all the same.
   */
  writeError: string | null;
  ms: number;
}

/**
 * Time between SIGTERM and SIGKILL for the process group, and the longest wait for pipes still
 * held after the exit. EVAL_BANANA_KILL_GRACE_MS sets it: eb's own tests kill many processes and
 * would spend most of their time waiting out the default.
 */
const DEFAULT_GRACE_MS = 2000;
/** After the process exits, pipes with no data for this long are closed (see closePipesSoon). */
const PIPE_IDLE_MS = 1000;

function graceMs(): number {
  const set = Number.parseInt(process.env.EVAL_BANANA_KILL_GRACE_MS ?? "", 10);
  return Number.isInteger(set) && set >= 0 ? set : DEFAULT_GRACE_MS;
}

/**
 * Runs one process without a shell, in its own process group, streaming stdout/stderr to files
 * and keeping only a bounded tail in memory. Never throws: failures are in the result.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const started = performance.now();
  const keep = spec.keepChars ?? 2000;
  const out = new Capture(keep, spec.stdoutFile, spec.scrubber);
  const err = new Capture(keep, spec.stderrFile, spec.scrubber);
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
        writeError: joinedOrNull([out.writeError, err.writeError]),
        ms: Math.floor(performance.now() - started),
      });
    };
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      group.leaderExited();
      closePipesSoon(child, [out, err], () => void finish());
    });
    child.on("close", () => void finish());
  });
}

/**
 * Once the leader exited, a grandchild may hold our pipes open forever, even one that left the
 * group (setsid) and so outlived its kill: they are closed once idle, or after a grace at most.
 */
function closePipesSoon(child: ChildProcess, captures: readonly Capture[], done: () => void) {
  const exitedAt = performance.now();
  const grace = graceMs();
  const idle = Math.min(PIPE_IDLE_MS, grace);
  let closed = false;
  const quiet = () =>
    performance.now() - exitedAt >= grace || !captures.some((capture) => capture.busy(idle));
  const close = () => {
    if (closed || !quiet()) return;
    clearInterval(watch);
    child.stdout?.destroy();
    child.stderr?.destroy();
    done();
  };
  // Timers run before the event loop polls for I/O: what the child wrote just before it exited
  // may be unread still (a loaded machine can hold us past the idle time). setImmediate decides
  // after the next poll, which reads it, and the stream is busy again or closed.
  const watch = setInterval(
    () => {
      if (quiet()) setImmediate(close);
    },
    Math.max(idle / 4, 10),
  );
  watch.unref();
  child.once("close", () => {
    closed = true;
    clearInterval(watch);
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
    writeError: null,
    ms: Math.floor(performance.now() - started),
  };
}

function joinedOrNull(reasons: readonly (string | null)[]): string | null {
  const given = reasons.filter((reason) => reason !== null);
  return given.length === 0 ? null : given.join("; ");
}

/** SIGTERM to the whole group, SIGKILL after a grace period. */
class GroupKiller {
  private graceTimer: NodeJS.Timeout | undefined;
  constructor(private readonly child: ChildProcess) {}

  kill(): void {
    if (this.graceTimer) return;
    this.signal("SIGTERM");
    this.graceTimer = setTimeout(() => this.signal("SIGKILL"), graceMs());
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
