import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { makeProject } from "../helpers/project.js";
import { type FaultServer, startFaultServer } from "./fault-server.js";
import { caseLine, casesProject, evalAt } from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Node fires a timer longer than 2^31 - 1 ms at once, so no timeout may be longer. */
const LONGEST = 2_147_483;
const TOO_LONG = /must be at most 2147483 seconds \(24\.8 days\)/;

const SECONDS_SETTINGS = [
  ["core", "check_timeout_seconds", "CHECK_TIMEOUT_SECONDS"],
  ["harness", "timeout_seconds", "HARNESS_TIMEOUT_SECONDS"],
  ["eval", "timeout_seconds", "EVAL_TIMEOUT_SECONDS"],
  ["eval", "max_retry_wait_seconds", "MAX_RETRY_WAIT_SECONDS"],
] as const;

describe("timeouts longer than a Node timer can wait", () => {
  it.each(SECONDS_SETTINGS)(
    "[%s] %s is refused above 24.8 days, in the file and the environment",
    async (section, key, env) => {
      const at = (value: number) =>
        makeProject({ ".eval-banana/config.toml": `[${section}]\n${key} = ${value}\n` });
      await expect(loadConfig({ cwd: at(LONGEST), env: {} })).resolves.toBeDefined();
      await expect(loadConfig({ cwd: at(LONGEST + 1), env: {} })).rejects.toThrow(TOO_LONG);
      const fromEnv = { [`EVAL_BANANA_${env}`]: "3000000" };
      await expect(loadConfig({ cwd: makeProject(), env: fromEnv })).rejects.toThrow(TOO_LONG);
    },
  );

  it("eb eval --timeout-seconds 3000000 exits 2 before any call, instead of timing out every call", async () => {
    server = await startFaultServer(() => ({ kind: "hang" }));
    const root = casesProject([caseLine("a", "hello")]);
    const result = await evalAt(root, server.baseURL, ["--timeout-seconds", "3000000"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(TOO_LONG);
    expect(server.requests).toEqual([]);
  });
});
