import { terminalSafe } from "../report/terminal.js";
import { redactUrl } from "../secrets/redact.js";

/**
 * The command that finishes an interrupted run: the same arguments, with `--resume RUN` in place
 * of any earlier one. URL credentials are left out (they are never printed); re-add them.
 */
export function resumeCommand(argv: readonly string[], runDir: string | readonly string[]): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--resume") i++;
    else if (!arg.startsWith("--resume=")) kept.push(redactUrl(arg));
  }
  // eb eval's arms: one --resume per arm, in arm order.
  const resumes = (typeof runDir === "string" ? [runDir] : runDir).flatMap((dir) => [
    "--resume",
    dir,
  ]);
  return ["eb", ...kept, ...resumes].map(shellQuote).join(" ");
}

/** The line `eb run` and `eb eval` print when interrupted. */
export function resumeHint(argv: readonly string[], runDir: string | readonly string[]): string {
  return `To finish this run, only its missing samples: ${terminalSafe(resumeCommand(argv, runDir))}\n`;
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
