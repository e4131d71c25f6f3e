#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { TOOL_VERSION } from "../engine/version.js";
import { EXIT, InputError } from "../errors.js";
import type { EvalFlags } from "./eval.js";
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

const EVAL_SETTINGS = [
  "core.output_dir",
  "eval.api_base",
  "eval.judge",
  "eval.workers",
  "eval.timeout_seconds",
  "eval.max_retries",
  "eval.cache_dir",
  "eval.pass_threshold",
] as const;

const EVAL_HELP = `
Targets (exactly one):
  -m MODEL         each case's messages go to POST <api-base>/chat/completions; the API key is
                   read from EVAL_BANANA_API_KEY, else OPENAI_API_KEY (never a flag or a file)
  --target CMD     CMD runs once per sample, without a shell, in --cwd; it reads
                   {"id","stratum","messages","sample"} as JSON on stdin and prints its output on
                   stdout; a non-zero exit or a timeout is an error sample
  Judge graders ask --judge MODEL through the same endpoint and cache, so they need the key too.

Cache: answers are stored under --cache-dir (content-addressed: endpoint, model, messages,
sampling parameters and the sample index). Model calls are cached unless
--no-cache; --target outputs only with --cache. Re-running an unchanged suite makes no call.

Output: <output-dir>/<run_id>/ (or --flat-output) with rows.jsonl (a manifest line, then one row per
case x sample, appended as samples finish), report.json and report.md; a summary on stdout.
The pass rate is the mean over cases of each case's mean sample score.

Exit codes:
  0    every sample ran without error (and the pass rate met --pass-threshold, if given)
  1    some sample was an error (failed call, timeout, crashed target), or the pass rate
       was below --pass-threshold
  2    could not run: bad flag, config or case file (file:line), no API key, judge graders
       without --judge; nothing was called
  130  interrupted (Ctrl-C, SIGTERM): finished rows and a report marked interrupted are written

Examples:
  eb eval cases.jsonl -m gpt-4.1-mini -k 3 --judge gpt-4.1
  eb eval cases.jsonl -m llama3 --api-base http://localhost:11434/v1
  eb eval cases.jsonl --target "node app/answer.mjs" --pass-threshold 0.9
`;

addSettingOptions(
  addNoProjectConfig(
    program
      .command("eval")
      .description("send JSONL cases to a model or a command, k samples each, and grade them")
      .argument("<cases>", "JSONL case file, one case per line (relative to --cwd)")
      .option("-m, --model <MODEL>", "model to evaluate, behind the OpenAI-compatible endpoint")
      .option("--target <COMMAND>", "program to evaluate instead of a model (see below)")
      .option("-k <N>", "samples per case (default 1)")
      .option("--temperature <NUM>", "sampling temperature sent with -m (default 0)")
      .option("--max-tokens <INT>", "max_tokens sent with -m (default: not sent)")
      .option("--cache", "also cache --target outputs (model calls are cached by default)")
      .option("--no-cache", "neither read nor write the cache")
      .option("--out <DIR>", "same as --output-dir")
      .option("--flat-output", "write into --output-dir itself (must be absent or empty)")
      .option("--cwd <PATH>", "working directory: config search, case file and --target", ".")
      .option("--verbose", "print debug information to stderr"),
  ),
  EVAL_SETTINGS,
)
  .addHelpText("after", EVAL_HELP)
  .action(async (cases: string, flags: EvalFlags) => {
    process.exitCode = await (await import("./eval.js")).evalCommand(cases, flags);
  });

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
