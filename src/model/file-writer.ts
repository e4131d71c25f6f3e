import { Worker } from "node:worker_threads";

/** Writes not yet acknowledged by the worker; beyond this, room() waits (memory stays bounded). */
const MAX_IN_FLIGHT = 1024;
/** Writes wait this long to travel together: a message per write costs more than the write. */
const BATCH_MS = 5;

/** What went wrong so far: how many writes failed, and the first reason. */
export interface WriteFailures {
  count: number;
  first: string;
}

/**
 * The worker, plain CommonJS so it runs the same from the TypeScript sources (tests) and from
 * dist. Each write is atomic: a unique temp file in the target's folder, then a rename. Each
 * folder is made once; one that went away after it was made (a cache cleared mid-run) is made
 * again, once.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { mkdirSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const { dirname } = require("node:path");
const { randomUUID } = require("node:crypto");
const made = new Set();
function writeOnce(path, text) {
  const folder = dirname(path);
  if (!made.has(folder)) {
    mkdirSync(folder, { recursive: true });
    made.add(folder);
  }
  const temp = path + "." + process.pid + "." + randomUUID() + ".tmp";
  try {
    writeFileSync(temp, text);
    renameSync(temp, path);
  } catch (error) {
    try { rmSync(temp, { force: true }); } catch {}
    throw error;
  }
}
function write(path, text) {
  try {
    writeOnce(path, text);
  } catch (error) {
    if (error.code !== "ENOENT" || !made.delete(dirname(path))) throw error;
    writeOnce(path, text);
  }
}
parentPort.on("message", (batch) => {
  let count = 0;
  let first = "";
  for (const [path, text] of batch) {
    try {
      write(path, text);
    } catch (error) {
      count++;
      first ||= String(error && error.message ? error.message : error);
    }
  }
  parentPort.postMessage({ count, first });
});
`;

/**
 * Writes files from a worker thread with synchronous calls. On the main thread a write costs a
 * message slot, not four thread-pool round trips (open, write, close, rename) that took more
 * time than the HTTP call whose answer was being cached; and a slow disk holds up the writes, not
 * the calls. Writes queued within a few milliseconds go over in one message.
 */
export class FileWriter {
  private worker: Worker | null = null;
  private queued: [string, string][] = [];
  private queuedDone: (() => void)[] = [];
  /** Done callbacks of the batches posted, oldest first (the worker answers in order). */
  private readonly posted: (() => void)[][] = [];
  private inFlight = 0;
  private wakers: (() => void)[] = [];
  private readonly failures: WriteFailures = { count: 0, first: "" };

  /** Resolves once another write fits under the in-flight limit. */
  async room(): Promise<void> {
    while (this.inFlight + this.queued.length >= MAX_IN_FLIGHT) await this.nextAnswer();
  }

  /** Queues `text` for `path`; `done` runs once it was written (or failed). */
  write(path: string, text: string, done: () => void): void {
    if (this.queued.length === 0) setTimeout(() => this.post(), BATCH_MS);
    this.queued.push([path, text]);
    this.queuedDone.push(done);
  }

  /** Waits for every write so far, then stops the worker. Failures are counted over all time. */
  async drain(): Promise<WriteFailures> {
    this.post();
    while (this.inFlight > 0) await this.nextAnswer();
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
    return { ...this.failures };
  }

  private post(): void {
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.posted.push(this.queuedDone);
    this.inFlight += batch.length;
    this.queued = [];
    this.queuedDone = [];
    try {
      const worker = this.started();
      worker.ref();
      worker.postMessage(batch);
    } catch (error) {
      // No worker (out of threads or memory): these writes fail; the run goes on without them.
      const first = error instanceof Error ? error.message : String(error);
      this.settle(this.posted.pop() ?? [], { count: batch.length, first });
    }
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on("message", (answer: WriteFailures) => this.answered(answer));
    worker.on("error", (error) => this.lost(worker, error.message));
    worker.on("exit", () => this.lost(worker, "the cache writer stopped"));
    this.worker = worker;
    return worker;
  }

  private answered(answer: WriteFailures): void {
    const done = this.posted.shift() ?? [];
    this.settle(done, answer);
    // Idle, it must not keep the process alive; busy, it must (as pending writes would).
    if (this.inFlight === 0) this.worker?.unref();
  }

  /** The worker died: whatever it had not answered counts as failed. */
  private lost(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const done of this.posted.splice(0))
      this.settle(done, { count: done.length, first: reason });
  }

  private settle(done: (() => void)[], answer: WriteFailures): void {
    this.inFlight -= done.length;
    this.failures.count += answer.count;
    this.failures.first ||= answer.first;
    for (const call of done) call();
    for (const wake of this.wakers.splice(0)) wake();
  }

  private nextAnswer(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }
}
