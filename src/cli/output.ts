import pc from "picocolors";

export function printError(message: string): void {
  process.stderr.write(`${pc.red("error:")} ${message}\n`);
}

export function printWarning(message: string): void {
  process.stderr.write(`${pc.yellow("warning:")} ${message}\n`);
}

/** Debug lines for --verbose. */
export function debugLogger(verbose: boolean | undefined): (message: string) => void {
  return verbose ? (message) => process.stderr.write(`${pc.dim(`debug: ${message}`)}\n`) : () => {};
}
