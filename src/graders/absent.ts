import { z } from "zod";
import { defineGrader, quote } from "./define.js";

/** None of the listed texts appears in the output, ignoring case. */
export const absent = defineGrader({
  describe: '{"any": ["<text>", ...]}',
  schema: z.strictObject({ any: z.array(z.string().min(1)).min(1) }),
  grade(output, spec) {
    const low = output.toLowerCase();
    const found = spec.any.filter((text) => low.includes(text.toLowerCase()));
    if (found.length === 0) return true;
    return { pass: false, reason: `found ${found.map((t) => quote(t)).join(", ")}` };
  },
});
