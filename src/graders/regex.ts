import vm from "node:vm";
import { z } from "zod";
import { defineGrader, quote } from "./define.js";
import { pythonToJsRegex } from "./python-regex.js";
import { longestInputWithin, regexCost } from "./regex-cost.js";

/** Longer outputs are searched in their first this many characters only. */
export const MAX_REGEX_INPUT = 1_000_000;

/**
 * A pattern with catastrophic backtracking (`(a+)+$` on 30 "a"s and a "!") runs for minutes and
 * blocks the event loop, so no other sample could finish. A match that takes longer than this
 * fails its grader instead.
 */
export const REGEX_TIMEOUT_MS = 1000;

/**
 * A match whose worst case (see regex-cost.ts) stays within this many steps runs directly instead
 * of under the vm watchdog, which costs 0.05-0.2 ms a call. On patterns built to come close to
 * their bound (as in regex-cost.test.ts), a step took at most ~2 ns compiled and ~8 ns in V8's
 * regexp interpreter (first runs on short texts), so a direct match blocks the event loop for a
 * few ms at worst. Past the budget the input is long enough that the watchdog's share of the
 * time is small anyway.
 */
export const DIRECT_MATCH_STEPS = 1_000_000;

/** Matches anywhere in the output, ignoring case, "." matching newlines (Python re.S | re.I). */
export const regex = defineGrader({
  describe: '{"pattern": "<regular expression>"} (Python or JavaScript syntax)',
  schema: z.strictObject({ pattern: z.string().min(1) }).transform((spec, ctx) => {
    let re: RegExp;
    try {
      const { source, flags } = pythonToJsRegex(spec.pattern);
      // Never the g or y flag: test() then ignores lastIndex and leaves it alone, so one RegExp
      // serves every call, directly or in the vm.
      re = new RegExp(source, `is${flags}`);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      // V8 repeats the whole pattern in its message; the user has it in front of them.
      const short = why.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
      ctx.addIssue({ code: "custom", path: ["pattern"], message: `invalid regex (${short})` });
      return z.NEVER;
    }
    const directUpTo = longestInputWithin(regexCost(re), DIRECT_MATCH_STEPS);
    return { pattern: spec.pattern, re, directUpTo };
  }),
  grade(output, spec) {
    const seen = output.length > MAX_REGEX_INPUT ? output.slice(0, MAX_REGEX_INPUT) : output;
    const found =
      seen.length <= spec.directUpTo
        ? spec.re.test(seen)
        : boundedTest(spec.re, seen, REGEX_TIMEOUT_MS);
    if (found === true) return true;
    if (found === "timeout") {
      const reason =
        `regex timed out after ${REGEX_TIMEOUT_MS} ms on ${seen.length} characters ` +
        "(the pattern backtracks too much: avoid nested quantifiers such as (a+)+)";
      return { pass: false, reason };
    }
    const scope = seen === output ? "" : ` in the first ${MAX_REGEX_INPUT} characters`;
    return { pass: false, reason: `no match for /${spec.pattern}/${scope} in ${quote(output)}` };
  },
});

/**
 * V8 cannot interrupt a running regular expression from JavaScript, but the vm module's watchdog
 * can (it terminates the execution from another thread). One context serves every call; a call
 * costs about 0.1 ms, mostly the watchdog thread, against a match that may take forever.
 */
export function boundedTest(re: RegExp, text: string, timeoutMs: number): boolean | "timeout" {
  const sandbox = matchContext();
  sandbox.re = re;
  sandbox.text = text;
  try {
    return MATCH.runInContext(sandbox, { timeout: timeoutMs }) === true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
    throw error;
  } finally {
    // The context lives as long as the process: do not keep the last output alive with it.
    sandbox.re = null;
    sandbox.text = "";
  }
}

const MATCH = new vm.Script("re.test(text)", { filename: "eval-banana-regex-grader" });

interface MatchSandbox extends vm.Context {
  re: RegExp | null;
  text: string;
}

let shared: MatchSandbox | undefined;

function matchContext(): MatchSandbox {
  shared ??= vm.createContext({ re: null, text: "" }) as MatchSandbox;
  return shared;
}
