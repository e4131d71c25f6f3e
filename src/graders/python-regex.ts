/**
 * Case files written for the article's Python harness use Python `re` syntax. Most of it is
 * JavaScript syntax too; this rewrites the common differences: `(?P<name>...)`, `(?P=name)`,
 * `\A`, `\Z` and leading global flags such as `(?m)`. Anything else is passed through and left
 * to the RegExp constructor to accept or reject.
 */
export function pythonToJsRegex(pattern: string): { source: string; flags: string } {
  const lead = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  const leadFlags = lead?.[1] ?? "";
  if (/[xL]/.test(leadFlags)) {
    throw new Error(`inline flags (?${leadFlags}) are not supported`);
  }
  const body = pattern.slice(lead?.[0].length ?? 0);
  return { source: rewrite(body), flags: leadFlags.includes("m") ? "m" : "" };
}

function rewrite(body: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch === "\\") {
      const next = body[i + 1] ?? "";
      i++;
      out += inClass ? ch + next : (ANCHORS[next] ?? ch + next);
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      out += ch;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
      if (body[i + 1] === "^") out += body[++i];
      // Python reads a "]" right after "[" or "[^" as a literal; JavaScript as the end.
      if (body[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (body.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
      continue;
    }
    const backref = /^\(\?P=(\w+)\)/.exec(body.slice(i));
    if (backref) {
      out += `\\k<${backref[1]}>`;
      i += backref[0].length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}

/** Python's absolute anchors; JS `^`/`$` would change meaning under the m flag. */
const ANCHORS: Record<string, string> = { A: "(?<![\\s\\S])", Z: "(?![\\s\\S])" };
