import pc from "picocolors";
import type { RunProgress } from "../index.js";

export interface ProgressSink {
  update(progress: Readonly<RunProgress>): void;
  /** Clears the live line; safe to call more than once. */
  done(): void;
}

/** The live line is redrawn at most this often (a fast run finishes thousands of rows a second). */
const LIVE_REDRAW_MS = 100;
/** Plain lines: one per tenth of the samples, never two within this many ms, … */
const PLAIN_MIN_GAP_MS = 5000;
/** … and one at least this often while rows still arrive, so a slow run shows it is alive. */
const PLAIN_HEARTBEAT_MS = 60_000;

/**
 * Progress on stderr: a live line on a terminal; plain, sparse lines when piped or in CI (logs
 * keep every line, so a line per row would bury the summary).
 */
export function createProgress(
  stream: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSink {
  const live = stream.isTTY === true && !env.CI;
  return live ? liveProgress(stream) : plainProgress(stream);
}

function liveProgress(stream: NodeJS.WriteStream): ProgressSink {
  let last: Readonly<RunProgress> | null = null;
  let drawnAt = 0;
  let shown = false;
  const draw = () => {
    if (last === null) return;
    drawnAt = performance.now();
    shown = true;
    stream.write(`\r\x1b[K${pc.dim(progressLine(last, drawnAt))}`);
  };
  // Keeps calls/s and ETA moving while a slow call is pending; unref'd so it never holds the run.
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    update(progress) {
      last = progress;
      if (performance.now() - drawnAt >= LIVE_REDRAW_MS) draw();
    },
    done() {
      clearInterval(timer);
      if (shown) stream.write("\r\x1b[K");
      shown = false;
      last = null;
    },
  };
}

function plainProgress(stream: NodeJS.WriteStream): ProgressSink {
  let lastAt = performance.now();
  let lastTenth = 0;
  return {
    update(progress) {
      const now = performance.now();
      const tenth = Math.floor((progress.samplesDone / Math.max(progress.samplesTotal, 1)) * 10);
      const due =
        (tenth > lastTenth && now - lastAt >= PLAIN_MIN_GAP_MS) ||
        now - lastAt >= PLAIN_HEARTBEAT_MS;
      // The summary follows at 100%, so a last line would only repeat it.
      if (!due || progress.samplesDone >= progress.samplesTotal) return;
      lastAt = now;
      lastTenth = tenth;
      stream.write(`${progressLine(progress, now)}\n`);
    },
    done() {},
  };
}

/** `eval 120/2000 cases · pass 84.3% · errors 2 · 35.2 calls/s · limit 24 · ETA 0:53` */
export function progressLine(p: Readonly<RunProgress>, now: number): string {
  const seconds = Math.max((now - p.startedAt) / 1000, 1e-3);
  const pass = p.samplesDone === 0 ? "–" : `${((p.passed / p.samplesDone) * 100).toFixed(1)}%`;
  // Rates are this attempt's: a resumed run's earlier rows took no time now.
  const sampled = p.samplesDone - p.earlierSamples;
  const calls = (sampled - (p.cached - p.earlierCached)) / seconds;
  const left = p.samplesTotal - p.samplesDone;
  const eta = sampled === 0 ? "–" : clock((seconds / sampled) * left);
  return [
    `eval ${p.itemsDone}/${p.itemsTotal} cases`,
    `pass ${pass}`,
    `errors ${p.errors}`,
    `${calls.toFixed(1)} calls/s`,
    // Calls allowed in flight: the adaptive limit (the target's, then the judge's).
    ...(p.limits?.length ? [`limit ${p.limits.join("/")}`] : []),
    ...(p.cached > 0 ? [`cached ${p.cached}`] : []),
    `ETA ${eta}`,
  ].join(" · ");
}

function clock(totalSeconds: number): string {
  const s = Math.round(totalSeconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}
