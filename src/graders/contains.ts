import { z } from "zod";
import { defineGrader, quote } from "./define.js";

/** Every listed text appears in the output, ignoring case. */
export const contains = defineGrader({
  describe: '{"all": ["<text>", ...]}',
  schema: z.strictObject({ all: z.array(z.string().min(1)).min(1) }),
  grade(output, spec) {
    const low = output.toLowerCase();
    const missing = spec.all.filter((text) => !low.includes(text.toLowerCase()));
    if (missing.length === 0) return true;
    const listed = missing.map((t) => quote(t)).join(", ");
    return { pass: false, reason: `missing ${listed} in ${quote(output)}` };
  },
});
