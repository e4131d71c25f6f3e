import { InputError } from "../errors.js";

/**
 * Splits a command line into argv the way a POSIX shell would for the simple cases, without
 * running a shell: whitespace separates words, '...' is literal, "..." allows \" \\ \$ \`
 * escapes, and a backslash outside quotes escapes the next character. No globbing,
 * variables or pipes: the command is run directly.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) {
        word += line[++i];
      } else word += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\" && i + 1 < line.length) word += line[++i];
    else word += ch;
  }
  if (quote !== null) {
    throw new InputError(
      `command ${JSON.stringify(line)} has an unterminated ${quote} quote — close the quote`,
    );
  }
  if (inWord) words.push(word);
  if (words.length === 0) {
    throw new InputError('the command is empty — give the program to run, e.g. "node app.mjs"');
  }
  return words;
}
