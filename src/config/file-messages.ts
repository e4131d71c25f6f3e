import { TomlError } from "smol-toml";
import type { z } from "zod";
import { didYouMean } from "../errors.js";
import { keysAt } from "./schema.js";

/**
 * Where in a config file a problem is, and how to name it. TOML parsers give no positions for
 * keys, so lines are found by reading the text.
 */

export function tomlErrorMessage(file: string, error: unknown): string {
  if (error instanceof TomlError) {
    const first = error.message.split("\n")[0];
    return `Invalid TOML in ${file}:${error.line}:${error.column}: ${first}`;
  }
  return `Invalid TOML in ${file}: ${String(error)}`;
}

/** One line per problem: each unknown key on its own, with the known key nearest to it. */
export function describeIssue(file: string, text: string, issue: z.core.$ZodIssue): string[] {
  const keys = issue.path.map(String);
  const where = keys.length > 0 ? keyLabel(keys) : "top level";
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const near = didYouMean(key, keysAt(issue.path));
      const line = findKeyLine(text, keys, key);
      return `${file}${line}: ${where} has unknown key ${key}${near === null ? "" : `: ${near}`}`;
    });
  }
  // A problem inside a list (`exclude_dirs.0`) is on the line of the list's key.
  const firstIndex = keys.findIndex((key) => /^\d+$/.test(key));
  const named = firstIndex === -1 ? keys : keys.slice(0, firstIndex);
  const line = findKeyLine(text, named.slice(0, -1), named.at(-1) ?? "");
  return [`${file}${line}: ${where}: ${issue.message}`];
}

/** `[core] pass_threshold`, `[agents.x] command`, `[harness.env]`. */
function keyLabel(keys: string[]): string {
  if (keys.length === 1) return `[${keys[0]}]`;
  if (keys[0] === "agents" && keys.length >= 2) {
    return `[agents.${keys[1]}]${keys.length > 2 ? ` ${keys.slice(2).join(".")}` : ""}`;
  }
  return `[${keys[0]}] ${keys.slice(1).join(".")}`;
}

/** Best-effort `:line` of `key = ...` inside the `[table]` header (TOML parsers give no positions). */
function findKeyLine(text: string, table: string[], key: string): string {
  const header = table.join(".");
  let current = "";
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const heading = tableHeading(line);
    if (heading !== null) {
      current = heading;
      continue;
    }
    const keyMatch = /^\s*["']?([^"'=\s]+)["']?\s*=/.exec(line);
    if (current === header && keyMatch?.[1] === key) return `:${index + 1}`;
  }
  return "";
}

/**
 * Best-effort `:line` where a table starts: its `[a.b]` header, the first header inside it
 * (`[a.b.c]`), or its `b = { ... }` line under `[a]`.
 */
export function findTableLine(text: string, table: string[]): string {
  const header = table.join(".");
  const index = text.split(/\r?\n/).findIndex((line) => {
    const heading = tableHeading(line);
    return heading === header || heading?.startsWith(`${header}.`);
  });
  if (index !== -1) return `:${index + 1}`;
  return findKeyLine(text, table.slice(0, -1), table.at(-1) ?? "");
}

/** `a.b` for a `[a.b]` or `[[a.b]]` line (quotes and spaces dropped), else null. */
function tableHeading(line: string): string | null {
  const heading = /^\s*\[+\s*([^\]]+?)\s*\]+/.exec(line);
  return heading ? heading[1]!.replaceAll(/["'\s]/g, "") : null;
}
