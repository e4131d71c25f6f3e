#!/usr/bin/env node
// A stand-in for the OpenHands CLI (PyPI `openhands` 1.16.0, Python 3.12: not installable on
// this machine), for the contract tests. It follows what the real CLI does in headless mode, per
// its source (OpenHands/OpenHands-CLI v1.16.0) and docs/agent-clis.md:
//  - argparse-style options; an unknown option is exit 2 "unrecognized arguments";
//  - --headless needs -t/--task or -f/--file, and always approves actions;
//  - LLM_MODEL / LLM_BASE_URL / LLM_API_KEY are honoured only with --override-with-envs;
//  - LiteLLM model names: "openai/<id>" calls an OpenAI-compatible /chat/completions with <id>;
//  - tools `terminal` (a bash command in the working folder) and `file_editor` (view);
//  - output without --json: console lines, then the last agent message in a
//    "CONVERSATION SUMMARY" panel as wide as $COLUMNS (80 when unset, as Rich does off a
//    terminal), wrapped inside it, then "Goodbye! 👋" and the conversation id.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

const VERSION = "1.16.0";
const argv = process.argv.slice(2);
const opts = { headless: false, json: false, overrideWithEnvs: false, task: null, file: null };

function usageError(message) {
  process.stderr.write(`usage: openhands [-h] [--version] [-t TASK] [-f FILE] [--headless] ...\n`);
  process.stderr.write(`openhands: error: ${message}\n`);
  process.exit(2);
}

for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  const value = () => {
    if (i + 1 >= argv.length) usageError(`argument ${arg}: expected one argument`);
    return argv[++i];
  };
  if (arg === "--version" || arg === "-v") {
    process.stdout.write(`OpenHands CLI ${VERSION} (eval-banana contract fake)\n`);
    process.exit(0);
  } else if (arg === "--headless") opts.headless = true;
  else if (arg === "--json") opts.json = true;
  else if (arg === "--override-with-envs") opts.overrideWithEnvs = true;
  else if (arg === "--always-approve") {
    // accepted; headless approves anyway
  } else if (arg === "-t" || arg === "--task") opts.task = value();
  else if (arg === "-f" || arg === "--file") opts.file = value();
  else usageError(`unrecognized arguments: ${argv.slice(i).join(" ")}`);
}
if (!opts.headless) usageError("the contract fake only supports --headless");
if (opts.task === null && opts.file === null) usageError("--headless requires --task or --file");
if (!opts.overrideWithEnvs) {
  process.stderr.write(
    "No agent settings found. Run `openhands` to configure, or pass --override-with-envs.\n",
  );
  process.exit(1);
}
const model = process.env.LLM_MODEL;
const baseUrl = process.env.LLM_BASE_URL;
const apiKey = process.env.LLM_API_KEY;
if (!model || !baseUrl || !apiKey) {
  process.stderr.write("LLM_MODEL, LLM_BASE_URL and LLM_API_KEY must all be set.\n");
  process.exit(1);
}
const task = opts.task ?? readFileSync(opts.file, "utf8");
const columns = Number(process.env.COLUMNS) > 0 ? Number(process.env.COLUMNS) : 80;
const conversationId = randomUUID().replaceAll("-", "");

const TOOLS = [
  {
    type: "function",
    function: {
      name: "terminal",
      description: "Execute a bash command in the terminal.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "The bash command to execute." },
          is_input: { type: "boolean" },
          timeout: { type: "number" },
        },
        required: ["command"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "file_editor",
      description: "View, create and edit files.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", enum: ["view", "create", "str_replace", "insert"] },
          path: { type: "string", description: "Absolute path to file or directory." },
        },
        required: ["command", "path"],
      },
    },
  },
];

function runTool(call) {
  const args = JSON.parse(call.function.arguments || "{}");
  if (call.function.name === "terminal") {
    const result = spawnSync("bash", ["-lc", args.command], { encoding: "utf8", timeout: 30_000 });
    return `${result.stdout}${result.stderr}[Command finished with exit code ${result.status}]`;
  }
  if (call.function.name === "file_editor" && args.command === "view") {
    const lines = readFileSync(path.resolve(args.path), "utf8").split("\n");
    return lines.map((line, n) => `${String(n + 1).padStart(6)}\t${line}`).join("\n");
  }
  return `Error: unsupported tool call ${call.function.name}`;
}

function emit(event) {
  if (opts.json) process.stdout.write(`${JSON.stringify(event)}\n`);
}

async function complete(messages) {
  const response = await fetch(`${baseUrl.replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      // LiteLLM strips the provider prefix before calling the provider.
      model: model.includes("/") ? model.slice(model.indexOf("/") + 1) : model,
      messages,
      tools: TOOLS,
      stream: false,
    }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`litellm.APIError: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text).choices[0].message;
}

function panel(title, text) {
  const inner = Math.max(columns - 4, 10);
  const wrapped = text
    .split("\n")
    .flatMap((line) =>
      line.length === 0 ? [""] : (line.match(new RegExp(`.{1,${inner}}`, "g")) ?? [""]),
    );
  const head = ` ${title} `;
  const left = Math.floor((columns - 2 - head.length) / 2);
  const top = `╭${"─".repeat(Math.max(left, 0))}${head}${"─".repeat(Math.max(columns - 2 - left - head.length, 0))}╮`;
  const body = wrapped.map((line) => `│ ${line.padEnd(inner)} │`);
  return [top, ...body, `╰${"─".repeat(columns - 2)}╯`].join("\n");
}

async function main() {
  if (!opts.json) process.stdout.write(`Initialized conversation ${conversationId}\n`);
  const messages = [
    { role: "system", content: "You are OpenHands agent, a helpful AI assistant." },
    { role: "user", content: task },
  ];
  emit({ kind: "MessageEvent", source: "user", llm_message: messages[1] });
  let last = "";
  for (let turn = 0; turn < 20; turn++) {
    const message = await complete(messages);
    messages.push({
      role: "assistant",
      content: message.content ?? "",
      tool_calls: message.tool_calls,
    });
    if (!message.tool_calls?.length) {
      last = message.content ?? "";
      emit({ kind: "MessageEvent", source: "agent", llm_message: message });
      break;
    }
    for (const call of message.tool_calls) {
      emit({
        kind: "ActionEvent",
        source: "agent",
        tool_name: call.function.name,
        tool_call: call,
      });
      if (!opts.json)
        process.stdout.write(`Agent action: ${call.function.name} ${call.function.arguments}\n`);
      const output = runTool(call);
      emit({ kind: "ObservationEvent", source: "environment", observation: output });
      messages.push({ role: "tool", tool_call_id: call.id, content: output });
    }
  }
  if (!opts.json) {
    process.stdout.write(`${panel("CONVERSATION SUMMARY", last)}\n`);
    process.stdout.write(`Goodbye! 👋\nConversation ID: ${conversationId}\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
