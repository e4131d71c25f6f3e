import type { z } from "zod";
import type { Message } from "../types.js";

/** The system and developer messages, which both APIs take apart from the turns; null: none. */
export function systemText(messages: readonly Message[]): string | null {
  const system = messages.filter((m) => m.role === "system" || m.role === "developer");
  return system.length === 0 ? null : system.map((m) => m.content).join("\n\n");
}

/** The client's answer read by `schema`, or an error saying where it is not `what`. */
export function answered<T>(schema: z.ZodType<T>, answer: unknown, what: string): T {
  if (answer === undefined || answer === null || answer === "") {
    throw new Error("endpoint answered with an empty body");
  }
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where =
    issue === undefined ? "" : ` (${issue.path.join(".") || "the body"}: ${issue.message})`;
  throw new Error(`endpoint answered with JSON that is not ${what}${where}`);
}
