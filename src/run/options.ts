import { type Config, type LoadConfigOptions, loadConfig } from "../config/load.js";
import type { SettingId } from "../config/settings.js";
import { parseShard } from "../config/shard-spec.js";
import type { ManifestBase, RowOf, RunKind } from "../report/record.js";
import type { RunProgress } from "./suite.js";

/** What every kind of run takes, beyond its own items and settings. */
export interface RunOptions<K extends RunKind> extends LoadConfigOptions {
  /** An already loaded configuration (otherwise loaded from the other options). */
  config?: Config;
  /** Write into `--output-dir` itself instead of a `<run_id>` folder inside it. */
  flatOutput?: boolean | undefined;
  /** An interrupted run folder to finish: only its missing item × sample pairs run. */
  resume?: string | undefined;
  /** Abort to stop launching samples and drop or kill the ones in flight (Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** Each sample's row as it is written (completion order), with where the run stands. */
  onSample?: ((row: RowOf<K>, progress: Readonly<RunProgress>) => void) | undefined;
  /** Warnings found while running (e.g. a provider_env variable that is not set). */
  onWarning?: ((message: string) => void) | undefined;
  /** The run folder, once it is created (or reopened) and locked, before any sample runs. */
  onStart?: ((runDir: string) => void) | undefined;
  /** The command line, for the run manifest (secrets are scrubbed from it). */
  argv?: readonly string[] | undefined;
}

/**
 * The run's configuration: the one given, or loaded from the options, its warnings (legacy keys)
 * passed to `onWarning` (a caller that loaded it has seen them).
 */
export async function configOf(
  options: LoadConfigOptions & Pick<RunOptions<RunKind>, "config" | "onWarning">,
): Promise<Config> {
  if (options.config) return options.config;
  const config = await loadConfig(options);
  for (const warning of config.warnings) options.onWarning?.(warning);
  return config;
}

/**
 * Whether the command line (the library caller's `flags`) set this setting: `--resume` takes a
 * setting from the run's manifest unless it did, whatever the environment and config file say.
 */
export function flagGiven(options: Pick<LoadConfigOptions, "flags">, id: SettingId): boolean {
  return options.flags?.[id] !== undefined;
}

/**
 * `--resume` of a shard's run finishes that shard: its `I/N` comes from the manifest unless the
 * command line gives one (then a difference is refused).
 */
export function resumedConfig(
  config: Config,
  options: Pick<LoadConfigOptions, "flags">,
  run: Pick<ManifestBase, "shard"> | null,
): Config {
  if (run === null || flagGiven(options, "core.shard")) return config;
  return { ...config, shard: run.shard === undefined ? null : parseShard(run.shard) };
}
