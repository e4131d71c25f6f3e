/**
 * PENDING (bug in src/model/chat.ts, createChatTarget(): `describe(model)` puts
 * `options.baseURL` as given into every error message). An --api-base with credentials in it,
 * `http://user:PASSWORD@host/v1` (a common way to reach a proxy), has its password redacted in
 * the manifest and in report.json's target.api_base (redactUrl in src/engine/run-cases.ts), but
 * every failed call's error text repeats the URL unredacted, so the password lands in
 * rows.jsonl, report.json (items' problem), report.md and on stdout.
 * Seen: `model "mock" at http://user:PW@127.0.0.1:PORT/v1: HTTP 500 ...`.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent } from "../helpers/loopback-server.js";
import { type FaultServer, reply, startFaultServer } from "./fault-server.js";
import { caseLine, casesProject, evalAt, filesUnder } from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("credentials in --api-base (pending: src/model/chat.ts)", () => {
  it("appear in no file and no output, failed calls included", async () => {
    server = await startFaultServer((request) =>
      lastContent(request) === "fail"
        ? reply({ error: { message: "down" } }, 500)
        : reply(completion("echo")),
    );
    const password = `pw${randomBytes(8).toString("hex")}`;
    const base = server.baseURL.replace("http://", `http://user:${password}@`);
    const root = casesProject([caseLine("ok", "hello"), caseLine("fail", "fail")]);
    const judged = [{ type: "judge", criteria: ["fine"] }];
    const root2 = casesProject([caseLine("judged", "fail", judged)]);
    const runs = [
      await evalAt(root, base, ["--max-retries", "0", "--no-cache"]),
      await evalAt(root2, base, ["--max-retries", "0", "--judge", "judge-m"]),
    ];
    expect(runs[0]?.code).toBe(1);
    for (const [i, dir] of [root, root2].entries()) {
      const leaks = filesUnder(dir).filter((f) =>
        readFileSync(path.join(dir, f), "utf8").includes(password),
      );
      expect(leaks, `files of run ${i}`).toEqual([]);
      expect(`${runs[i]?.stdout}${runs[i]?.stderr}`).not.toContain(password);
    }
  });
});
