/**
 * bench/soak: 20,000 cases × k=3 against a loopback server that fails 10% of calls and answers
 * in 1–50 ms; `eb eval` is killed with SIGTERM at a random moment and resumed, three times, then
 * finishes. Prints rows written, rows lost (must be 0), duplicates (must be 0), invalid lines,
 * peak memory and time.
 *
 * Run: bench/run.sh soak [--cases 20000] [--k 3] [--kills 3] [--workers 32]
 * (about 5 minutes on 2 cores: retries back off, so a failing call holds its worker ~1 s)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createRng } from "../../src/stats/rng.js";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "20000" },
    k: { type: "string", default: "3" },
    kills: { type: "string", default: "3" },
    workers: { type: "string", default: "32" },
  },
});
const cases = Number(values.cases);
const k = Number(values.k);
const kills = Number(values.kills);
const cli = path.resolve(import.meta.dirname, "../../../dist/bin/eb.js");
const rng = createRng(42);

/** 10% of calls fail (500 or a reset), the rest answer after 1–50 ms. */
function handle(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const roll = rng.uniform();
    if (roll < 0.05) {
      response.writeHead(500).end("{}");
      return;
    }
    if (roll < 0.1) {
      request.socket.destroy();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      messages: { content: string }[];
    };
    const text = `answer to ${body.messages.at(-1)?.content ?? ""}`;
    const completion = {
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "soak-model-v1",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    setTimeout(
      () =>
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(completion)),
      1 + Math.floor(rng.uniform() * 50),
    );
  });
}

interface Attempt {
  code: number | null;
  seconds: number;
  peakMb: number;
}

/** One `eb eval` process, optionally SIGTERMed after `killAfterMs`. */
function attempt(args: string[], cwd: string, killAfterMs: number | null): Promise<Attempt> {
  const started = performance.now();
  const child = spawn("/usr/bin/time", ["-f", "%M", process.execPath, cli, ...args], {
    cwd,
    env: { ...process.env, EVAL_BANANA_API_KEY: "sk-soak" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // /usr/bin/time forwards nothing: signal eb itself, the child of time.
  const timer =
    killAfterMs === null
      ? undefined
      : setTimeout(() => spawn("pkill", ["-TERM", "-P", String(child.pid)]), killAfterMs);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      const peakKb = Number(stderr.trim().split("\n").at(-1));
      resolve({ code, seconds: (performance.now() - started) / 1000, peakMb: peakKb / 1024 });
    });
  });
}

const server = createServer(handle);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;
const root = mkdtempSync(path.join(os.tmpdir(), "eb-soak-"));
writeFileSync(path.join(root, "config.toml"), "");
const lines = Array.from({ length: cases }, (_, i) =>
  JSON.stringify({
    id: `case-${i}`,
    stratum: `s${i % 5}`,
    messages: [{ role: "user", content: `question ${i}` }],
    graders: [{ type: "contains", all: [`question ${i}`] }],
  }),
);
writeFileSync(path.join(root, "cases.jsonl"), `${lines.join("\n")}\n`);
const common = ["eval", "cases.jsonl", "-m", "soak", "--api-base", `http://127.0.0.1:${port}/v1`];
const args = [...common, "-k", String(k), "--workers", values.workers, "--no-project-config"];
const attempts: Attempt[] = [];
const first = await attempt(args, root, 2000 + Math.floor(rng.uniform() * 8000));
attempts.push(first);
const results = path.join(root, ".eval-banana/results");
const runDir = path.join(results, readdirSync(results)[0]!);
for (let i = 1; i <= kills; i++) {
  const killAt = i < kills ? 2000 + Math.floor(rng.uniform() * 8000) : null;
  attempts.push(await attempt([...args, "--resume", runDir], root, killAt));
}
server.close();

const text = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trimEnd().split("\n");
let invalid = 0;
const seen = new Map<string, number>();
for (const line of text.slice(1)) {
  try {
    const row = JSON.parse(line) as { id: string; sample: number };
    const key = `${row.id}#${row.sample}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  } catch {
    invalid++;
  }
}
const duplicates = [...seen.values()].reduce((sum, n) => sum + (n - 1), 0);
const expected = cases * k;
const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as {
  stats: { samples: number; errors: number };
  interrupted: boolean;
};
console.log(`cases ${cases} × k=${k}: ${expected} samples; ${kills} SIGTERM + resume cycles`);
for (const [i, a] of attempts.entries()) {
  const line = `exit ${a.code}, ${a.seconds.toFixed(1)} s, peak ${a.peakMb.toFixed(0)} MB`;
  console.log(`  attempt ${i}: ${line}`);
}
console.log(`rows written ${text.length - 1}, distinct ${seen.size}`);
console.log(
  `rows lost ${expected - seen.size} (must be 0), duplicates ${duplicates} (must be 0), invalid lines ${invalid}`,
);
console.log(
  `final report: samples ${report.stats.samples}, errors ${report.stats.errors}, interrupted ${report.interrupted}`,
);
console.log(
  `peak memory ${Math.max(...attempts.map((a) => a.peakMb)).toFixed(0)} MB; total time ${attempts.reduce((s, a) => s + a.seconds, 0).toFixed(1)} s`,
);
rmSync(root, { recursive: true, force: true });
