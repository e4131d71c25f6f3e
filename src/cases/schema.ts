import { z } from "zod";
import type { GraderSpec } from "../graders/types.js";
import { MESSAGE_ROLES, type Message } from "../model/types.js";

/** One line of a case file, validated: the article's format plus the line it came from. */
export interface Case {
  id: string;
  stratum: string;
  messages: Message[];
  graders: GraderSpec[];
  /** 1-based line in the case file. */
  line: number;
}

export const CASE_FIELDS = ["id", "stratum", "messages", "graders"] as const;

export const messageSchema = z.strictObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
});

/** Graders are only checked for being a list here; each grader validates its own fields. */
export const caseLineSchema = z.strictObject({
  // The loader refuses the rest (see validId in load.ts) with its own messages.
  id: z
    .string()
    .min(1)
    .meta({
      pattern: "^[^/\\\\\\u0000]+$",
      not: { enum: [".", ".."] },
      description: "Unique in the file; it names files in the run folder (no /, \\ or . and ..).",
    }),
  // The article reads a missing stratum as "none"; null means the same.
  stratum: z
    .string()
    .min(1)
    .nullish()
    .transform((s) => s ?? "none")
    .describe('A label to break results down by; missing or null reads as "none".'),
  messages: z
    .array(messageSchema)
    .min(1)
    .describe("The conversation sent to the target; the last message is the request."),
  graders: z.array(z.unknown()).min(1).describe("What decides a sample's pass; all must pass."),
});

/** The fields every grader has, whatever its type. */
export const graderHeadSchema = z.looseObject({
  type: z.string().min(1),
  name: z.string().min(1).optional(),
});

/** What to do about a problem in each field; shown after the problem. */
export const FIELD_HINTS: Record<string, string> = {
  id: 'give the case a unique non-empty string "id", e.g. "refund-001"',
  stratum: '"stratum" is an optional non-empty string label, e.g. "typical"',
  messages: `"messages" is a non-empty list of {"role": ${MESSAGE_ROLES.map((r) => `"${r}"`).join("|")}, "content": "<text>"}`,
  graders: '"graders" is a non-empty list of {"type": "<grader type>", "name": "<optional>", ...}',
};
