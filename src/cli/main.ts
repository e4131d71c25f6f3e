#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { TOOL_VERSION } from "../engine/version.js";
import { EXIT, InputError } from "../errors.js";
import {
  addDiscoveryOptions,
  addNoProjectConfig,
  addSettingOptions,
  collect,
  HARNESS_SETTINGS,
  RUN_SETTINGS,
} from "./options.js";
import { printError } from "./output.js";
import type { RunFlags } from "./run.js";

/** Commands load their modules only when run, so `eb --version` starts fast. */
function action<F>(load: () => Promise<(flags: F) => Promise<number>>) {
  return async (flags: F) => {
    process.exitCode = await (await load())(flags);
  };
}

const program = new Command("eb")
  .description(
    "eval-banana: score LLM and agent outputs.\n" +
      "Checks: YAML files in eval_checks/ folders, each scored 0 or 1 (deterministic Python\n" +
      "scripts, or harness_judge checks answered by an agent CLI).",
  )
  .version(TOOL_VERSION, "-V, --version")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

program
  .command("init")
  .description("create .eval-banana/config.toml with every setting explained")
  .option("--force", "overwrite an existing config file")
  .option("--cwd <PATH>", "folder to create .eval-banana/ in", ".")
  .action(action(async () => (await import("./init.js")).initCommand));

addDiscoveryOptions(
  program
    .command("list")
    .description("list discovered checks: id, type, description, file (tab-separated)")
    .option("--tag <TAG>", "only checks with this tag (repeatable; any of them)", collect),
).action(action<RunFlags>(async () => (await import("./list.js")).listCommand));

addSettingOptions(
  addNoProjectConfig(
    addDiscoveryOptions(
      program
        .command("validate")
        .description("validate every check definition and the harness setup without running"),
    ),
  ),
  HARNESS_SETTINGS,
).action(action<RunFlags>(async () => (await import("./validate.js")).validateCommand));

addSettingOptions(
  addNoProjectConfig(
    addDiscoveryOptions(
      program
        .command("run")
        .description(
          "run the discovered checks and write a run folder (report.json, report.md, rows.jsonl,\n" +
            "checks/). Exit 0: passed; 1: below the threshold or any error; 2: could not run;\n" +
            "130: interrupted (what finished is written).",
        )
        .option("--check-id <ID>", "run only the check with this id")
        .option("--tag <TAG>", "only checks with this tag (repeatable; any of them)", collect)
        .option("--flat-output", "write into --output-dir itself (must be absent or empty)"),
    ),
  ),
  RUN_SETTINGS,
).action(action<RunFlags>(async () => (await import("./run.js")).runCommand));

async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version also arrive here, with exit code 0.
    return error.exitCode === 0 ? 0 : EXIT.couldNotRun;
  }
  if (error instanceof InputError) {
    printError(error.message);
    return EXIT.couldNotRun;
  }
  printError(
    `unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return EXIT.couldNotRun;
}

await main();
