import pc from "picocolors";
import { terminalSafe } from "../report/terminal.js";

// Messages quote user content (ids, paths, what a script printed): made safe before printing.

export function printError(message: string): void {
  process.stderr.write(`${pc.red("error:")} ${terminalSafe(message)}\n`);
}

export function printWarning(message: string): void {
  process.stderr.write(`${pc.yellow("warning:")} ${terminalSafe(message)}\n`);
}

/** Debug lines for --verbose. */
export function debugLogger(verbose: boolean | undefined): (message: string) => void {
  return verbose
    ? (message) => process.stderr.write(`${pc.dim(`debug: ${terminalSafe(message)}`)}\n`)
    : () => {};
}
