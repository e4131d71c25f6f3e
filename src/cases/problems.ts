import type { z } from "zod";

/** One thing wrong with a case file, and what to do about it. */
export interface Problem {
  line: number;
  what: string;
  todo: string;
}

/** Problems listed in one error; the rest are counted. */
const MAX_LISTED = 20;

/** `messages[0].role: <zod message>`, or `missing "role" in messages[0]`. */
export function issueText(issue: z.core.$ZodIssue, root: unknown): string {
  const path = pathLabel(issue.path);
  const last = issue.path.at(-1);
  if (
    issue.code === "invalid_type" &&
    last !== undefined &&
    valueAt(root, issue.path) === undefined
  ) {
    const parent = pathLabel(issue.path.slice(0, -1));
    return `missing field "${String(last)}"${parent ? ` in ${parent}` : ""}`;
  }
  return path ? `${path}: ${issue.message}` : issue.message;
}

function pathLabel(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`))
    .join("");
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Every problem in one message, `<file>:<line>: <what> — <todo>`, in line order. */
export function problemReport(path: string, problems: Problem[]): string {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const listed = sorted.slice(0, MAX_LISTED).map((p) => `${path}:${p.line}: ${p.what} — ${p.todo}`);
  const more = sorted.length - listed.length;
  const count = `${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  return [
    `invalid case file ${path} (${count}):`,
    ...listed,
    ...(more > 0 ? [`… and ${more} more`] : []),
  ].join("\n");
}
