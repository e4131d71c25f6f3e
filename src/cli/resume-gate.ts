import path from "node:path";
import { manifestAt } from "./run-location.js";

/** The flags that decide a run's gate, by their attribute in the parsed flags. */
const GATE_FLAGS = {
  passThreshold: "--pass-threshold",
  baseline: "--baseline",
  margin: "--margin",
  inconclusive: "--inconclusive",
  scope: "--scope",
} as const;
type GateKey = keyof typeof GATE_FLAGS;

/** `--pass-threshold` and `--baseline` are two gates: giving one now drops the other's flags. */
const OTHER_GATE: Record<GateKey, readonly GateKey[]> = {
  passThreshold: ["baseline", "margin", "inconclusive", "scope"],
  baseline: ["passThreshold"],
  margin: ["passThreshold"],
  inconclusive: ["passThreshold"],
  scope: ["passThreshold"],
};

/**
 * `--resume RUN` judges the run as it was started: each gate flag (`keys`) the command line
 * leaves out is taken from the command the run recorded in its manifest. One given now wins,
 * and the other gate's flags are not taken (`--resume RUN --pass-threshold 0.8` of a run started
 * with `--baseline B` gates on the threshold). A run that cannot be read is left to --resume to
 * refuse.
 */
export function withRunGate<F extends { resume?: string | undefined }>(
  flags: F,
  keys: readonly GateKey[],
): F {
  if (flags.resume === undefined) return flags;
  const recorded = recordedCommand(path.resolve(flags.resume));
  const given = new Map(Object.entries(flags));
  const dropped = new Set(
    keys.filter((key) => given.get(key) !== undefined).flatMap((key) => OTHER_GATE[key]),
  );
  const taken = keys.flatMap((key) => {
    if (given.get(key) !== undefined || dropped.has(key)) return [];
    const value = flagValue(recorded, GATE_FLAGS[key]);
    return value === undefined ? [] : [[key, value] as const];
  });
  return { ...flags, ...Object.fromEntries(taken) };
}

/** The command line a run recorded (its arguments after `eb`), or none. */
function recordedCommand(runDir: string): readonly string[] {
  const manifest = manifestAt(path.join(runDir, "rows.jsonl"));
  const command = manifest !== null && "command" in manifest ? manifest.command : null;
  return Array.isArray(command) ? command.filter((arg) => typeof arg === "string") : [];
}

/** The value of `--flag VALUE` or `--flag=VALUE` (the last one, as the parser takes it). */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    if (arg === flag && i + 1 < argv.length) value = argv[i + 1];
    else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
  });
  return value;
}
