import { createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent } from "../helpers/loopback-server.js";
import { runEb, sortedRows } from "../helpers/project.js";
import { type FaultServer, reply, startFaultServer } from "./fault-server.js";
import { caseLine, casesProject, evalAt, OUT, type Row } from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CASES = Array.from({ length: 300 }, (_, i) => caseLine(`c${i}`, `q${i}`));

/** A port nothing listens on (the kernel's pick, closed again). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The rows written (a stopped run writes no report). */
function rowsIn(root: string): Row[] {
  return sortedRows<Row>(path.join(root, OUT));
}

describe("a target whose every call fails the same way stops the run", () => {
  it("connection refused on 300 cases: exit 2 after 20 calls, saying so; --resume finishes once it answers", async () => {
    const port = await closedPort();
    const root = casesProject(CASES);
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const run = await evalAt(root, baseURL, ["--max-retries", "0"]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `all 20 calls to the target failed the same way: model "mock" at ${baseURL}: `,
    );
    expect(run.stderr).toContain("ECONNREFUSED");
    expect(run.stderr).toContain(`--resume ${path.join(root, OUT)}`);
    expect(run.stderr).not.toContain("unexpected failure");
    // The failures before the 20th are rows; the samples in flight with it may be too.
    const kept = rowsIn(root);
    expect(kept.length).toBeGreaterThanOrEqual(19);
    expect(kept.length).toBeLessThan(40);
    expect(kept.every((row) => row.status === "error")).toBe(true);

    server = await startFaultServer(
      (request) => reply(completion(`echo: ${lastContent(request)}`)),
      port,
    );
    const resumed = await evalAt(root, baseURL, ["--resume", path.join(root, OUT)]);
    expect(resumed.code, resumed.stderr).toBe(1);
    const rows = rowsIn(root);
    expect(rows).toHaveLength(300);
    expect(rows.filter((row) => row.status === "passed")).toHaveLength(300 - kept.length);
  });

  it("a --target that exits alike every time: exit 2 naming its exit code and stderr", async () => {
    const root = casesProject(CASES.slice(0, 60), {
      "fail.sh": 'echo "no model loaded" >&2\nexit 3\n',
    });
    const run = await runEb(
      ["eval", "cases.jsonl", "--target", "sh fail.sh", "--out", OUT, "--flat-output"],
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      'all 20 calls to the target failed the same way: command "sh fail.sh" exited with code 3: no model loaded',
    );
    expect(rowsIn(root).length).toBeLessThan(60);
  });

  it("the same HTTP error after a first answer is each case's own: every row is written, exit 1", async () => {
    server = await startFaultServer((request) =>
      lastContent(request) === "q0"
        ? reply(completion("echo: q0"))
        : reply({ error: { message: "context too long" } }, 400),
    );
    const root = casesProject(CASES.slice(0, 60));
    const run = await evalAt(root, server.baseURL, ["--workers", "1"]);
    expect(run.code, run.stderr).toBe(1);
    const rows = rowsIn(root);
    expect(rows).toHaveLength(60);
    expect(rows.filter((row) => row.status === "error")).toHaveLength(59);
  });

  it("after failures of another kind, 20 alike still stop the run, saying none succeeded", async () => {
    server = await startFaultServer((request) => {
      const n = Number(lastContent(request).slice(1));
      const message = n < 5 ? `bad request ${n}` : "the model is loading";
      return reply({ error: { message } }, n < 5 ? 400 : 503);
    });
    const root = casesProject(CASES.slice(0, 60));
    const run = await evalAt(root, server.baseURL, ["--workers", "1", "--max-retries", "0"]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      "none of 25 calls to the target succeeded, and the last 20 failed the same way: " +
        `model "mock" at ${server.baseURL}: HTTP 503 the model is loading`,
    );
    expect(rowsIn(root)).toHaveLength(24);
  });

  it("failures that differ are no stretch: every row is written, exit 1", async () => {
    server = await startFaultServer((request) =>
      reply({ error: { message: `no such thing as ${lastContent(request)}` } }, 404),
    );
    const root = casesProject(CASES.slice(0, 60));
    const run = await evalAt(root, server.baseURL);
    expect(run.code, run.stderr).toBe(1);
    expect(rowsIn(root)).toHaveLength(60);
  });
});
