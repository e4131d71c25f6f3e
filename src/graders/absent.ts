import { z } from "zod";
import { defineGrader, quote } from "./define.js";

/** Context on both sides of a found text, so a long answer still shows where it was. */
const CONTEXT_CHARS = 30;

function around(output: string, low: string, text: string): string {
  const at = low.indexOf(text.toLowerCase());
  const from = Math.max(0, at - CONTEXT_CHARS);
  return `${from > 0 ? "…" : ""}${output.slice(from)}`;
}

/** None of the listed texts appears in the output, ignoring case. */
export const absent = defineGrader({
  describe: '{"any": ["<text>", ...]}',
  schema: z.strictObject({ any: z.array(z.string().min(1)).min(1) }),
  grade(output, spec) {
    const low = output.toLowerCase();
    const found = spec.any.filter((text) => low.includes(text.toLowerCase()));
    if (found.length === 0) return true;
    const listed = found.map((t) => quote(t)).join(", ");
    return { pass: false, reason: `found ${listed} in ${quote(around(output, low, found[0]!))}` };
  },
});
