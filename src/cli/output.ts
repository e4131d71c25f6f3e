import { readFile } from "node:fs/promises";
import path from "node:path";
import pc from "picocolors";
import { CommandGuard, terminalSafe, terminalSafeJson } from "../report/terminal.js";

// Messages quote user content (ids, paths, what a script printed): made safe before printing.

export function printError(message: string): void {
  process.stderr.write(`${pc.red("error:")} ${terminalSafe(message)}\n`);
}

export function printWarning(message: string): void {
  process.stderr.write(`${pc.yellow("warning:")} ${terminalSafe(message)}\n`);
}

/** A run folder's report.json for `--json`: the same JSON, with terminal controls escaped. */
export async function reportJson(runDir: string): Promise<string> {
  return terminalSafeJson(await readFile(path.join(runDir, "report.json"), "utf8"));
}

/** Debug lines for --verbose. */
export function debugLogger(verbose: boolean | undefined): (message: string) => void {
  return verbose
    ? (message) => process.stderr.write(`${pc.dim(`debug: ${terminalSafe(message)}`)}\n`)
    : () => {};
}

type Write = (chunk: string, ...rest: unknown[]) => boolean;

/** The writes the guard wraps, for eb's own workflow commands. */
const unguarded = new Map<NodeJS.WritableStream, { write: Write; guard: CommandGuard }>();

/**
 * Every write to stdout and stderr passes a CommandGuard from here on: whatever path foreign
 * text takes (a renderer, a message, commander's help, a library), no line of it is a GitHub
 * workflow command. The CLI calls this once, before any command runs.
 */
export function guardOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as Write;
    const guard = new CommandGuard();
    unguarded.set(stream, { write, guard });
    const guarded: Write = (chunk: string | Uint8Array, ...rest) =>
      write(
        guard.filter(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()),
        ...rest,
      );
    stream.write = guarded as typeof stream.write;
  }
}

/**
 * eb's own workflow commands (annotations, whose values are escaped as GitHub asks), each on a
 * line of its own, around the guard.
 */
export function writeCommands(stream: NodeJS.WritableStream, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const text = `${lines.join("\n")}\n`;
  const own = unguarded.get(stream);
  if (own === undefined) {
    stream.write(text);
    return;
  }
  own.write(text);
  own.guard.lineStart();
}
