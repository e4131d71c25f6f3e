import { z } from "zod";
import { defineGrader, quote } from "./define.js";

/** The output, trimmed, is exactly the value, trimmed. */
export const equals = defineGrader({
  describe: '{"value": "<expected text>"}',
  schema: z.strictObject({ value: z.string() }),
  grade(output, spec) {
    const pass = output.trim() === spec.value.trim();
    return pass
      ? true
      : { pass, reason: `expected ${quote(spec.value.trim())}, got ${quote(output.trim())}` };
  },
});
