/**
 * bench/verdict: how long extractVerdict takes on agent stdout of the size the harness judge
 * keeps (4 Mi characters at most), realistic and pathological. Target: a realistic 2 MB stream
 * well under 50 ms, which no user would notice next to the agent run itself.
 *
 * Run: bench/run.sh verdict [--mb 2] [--runs 15]
 */
import { parseArgs } from "node:util";
import { extractVerdict } from "../../src/judge/verdict.js";
import { median } from "../median.js";

const { values } = parseArgs({
  options: { mb: { type: "string", default: "2" }, runs: { type: "string", default: "15" } },
});
const size = Number(values.mb) * 1e6;
const runs = Number(values.runs);

/** Repeats `make(i)` until the text reaches `size`, then appends `last`. */
function fill(make: (i: number) => string, last: string): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const part = make(i);
    parts.push(part);
    length += part.length;
  }
  return parts.join("") + last;
}

const FILE = 'export function f(x: number) {\n  return { ok: true, "n": x };\n}\n'.repeat(20);

/** claude stream-json: tool calls whose results are source files, drafts, then the result. */
function claudeEvent(i: number): string {
  const events = [
    { type: "assistant", message: { content: [{ type: "tool_use", id: `t${i}`, input: {} }] } },
    { type: "user", message: { content: [{ type: "tool_result", content: FILE }] } },
    { type: "assistant", message: { content: [{ type: "text", text: `Step ${i}: reading.` }] } },
  ];
  return `${JSON.stringify(events[i % events.length])}\n`;
}

const VERDICT = '{"score": 1, "reason": "README explains install."}';
const inputs: Record<string, string> = {
  "claude stream-json": fill(claudeEvent, JSON.stringify({ type: "result", result: VERDICT })),
  "codex --json": fill(
    (i) =>
      `${JSON.stringify({ type: "item.completed", item: { id: `item_${i}`, type: "command_execution", aggregated_output: FILE, exit_code: 0 } })}\n`,
    JSON.stringify({ type: "item.completed", item: { type: "agent_message", text: VERDICT } }),
  ),
  "plain transcript": fill((i) => `Step ${i}: I read the file.\n${FILE}`, VERDICT),
  "unmatched { in prose": fill((i) => `line ${i} { opens { and { never closes\n`, VERDICT),
  "{ only": fill(() => "{", VERDICT),
};

console.log(`extractVerdict, median of ${runs} runs, ${values.mb} MB inputs`);
for (const [name, text] of Object.entries(inputs)) {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const found = extractVerdict(text);
    times.push(performance.now() - started);
    if (found?.score !== 1) throw new Error(`${name}: no verdict found`);
  }
  console.log(`${name.padEnd(24)} ${median(times).toFixed(1).padStart(7)} ms`);
}
