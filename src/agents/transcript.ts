/**
 * An agent's session as its JSON event stream tells it (claude/gemini stream-json, codex
 * `exec --json`, opencode `--format json`, pi `--mode json`): the final answer, every tool call
 * and the tokens. Each CLI's events have their own shape; one reader per shape, tried on every
 * event (no two shapes share their telltale fields).
 */

/** One tool call the agent made: the tool's name and its arguments as sent. */
export interface ToolCall {
  name: string;
  input: unknown;
}

export interface Transcript {
  /** The agent's last message: its final answer (the whole stdout when it printed no events). */
  answer: string;
  calls: ToolCall[];
  /** Tokens the agent's model read and wrote, as its last usage report says; null: none seen. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** JSON events read. */
  events: number;
}

type Event = Record<string, unknown>;

interface Reading {
  answer: string | null;
  /** Assistant text since the last tool call (gemini streams it in deltas). */
  pending: string;
  calls: ToolCall[];
  promptTokens: number | null;
  completionTokens: number | null;
}

/** Each reader takes what its CLI's events carry and ignores every other event. */
const READERS: readonly ((event: Event, r: Reading) => void)[] = [
  // claude stream-json: assistant messages hold tool_use and text blocks; `result` ends it.
  (event, r) => {
    if (event.type !== "assistant" || !isObject(event.message)) return;
    for (const block of listOf(event.message.content)) {
      if (block.type === "tool_use") r.calls.push({ name: text(block.name), input: block.input });
      if (block.type === "text" && typeof block.text === "string") r.answer = block.text;
    }
  },
  (event, r) => {
    if (event.type !== "result" || typeof event.result !== "string") return;
    r.answer = event.result;
    const usage = isObject(event.usage) ? event.usage : {};
    const read = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"];
    setTokens(r, sum(read.map((key) => usage[key])), usage.output_tokens);
  },
  // gemini stream-json: tool_use / tool_result events, assistant text in deltas, stats last.
  (event, r) => {
    if (event.type !== "tool_use" || typeof event.tool_name !== "string") return;
    r.calls.push({ name: event.tool_name, input: event.parameters });
    r.pending = "";
  },
  (event, r) => {
    if (event.type !== "message" || event.role !== "assistant") return;
    if (typeof event.content !== "string") return;
    r.pending = event.delta === true ? r.pending + event.content : event.content;
    r.answer = r.pending;
  },
  (event, r) => {
    if (event.type !== "result" || !isObject(event.stats)) return;
    setTokens(r, event.stats.input_tokens, event.stats.output_tokens);
  },
  // codex --json: items (agent_message, command_execution, file_change, mcp_tool_call, …).
  (event, r) => {
    if (event.type !== "item.completed" || !isObject(event.item)) return;
    const item = event.item;
    if (item.type === "agent_message" && typeof item.text === "string") r.answer = item.text;
    // A command's input is the command: its output (a `find` listing SKILL.md) is no read of it.
    else if (item.type === "command_execution")
      r.calls.push({ name: "command_execution", input: item.command });
    else if (item.type !== "reasoning") r.calls.push({ name: text(item.type), input: item });
  },
  (event, r) => {
    if (event.type !== "turn.completed" || !isObject(event.usage)) return;
    setTokens(r, event.usage.input_tokens, event.usage.output_tokens);
  },
  // opencode --format json: each event carries a part (tool, text, step-finish).
  (event, r) => {
    const part = event.part;
    if (!isObject(part) || typeof event.sessionID !== "string") return;
    if (part.type === "tool") {
      const state = isObject(part.state) ? part.state : {};
      r.calls.push({ name: text(part.tool), input: state.input });
    }
    if (part.type === "text" && typeof part.text === "string") r.answer = part.text;
    if (part.type === "step-finish" && isObject(part.tokens)) {
      setTokens(r, part.tokens.input, part.tokens.output);
    }
  },
  // pi --mode json: tool executions by name, assistant messages with their usage.
  (event, r) => {
    if (event.type !== "tool_execution_start" || typeof event.toolName !== "string") return;
    r.calls.push({ name: event.toolName, input: event.args });
  },
  (event, r) => {
    if (event.type !== "message_end" || !isObject(event.message)) return;
    const message = event.message;
    if (message.role !== "assistant") return;
    const said = listOf(message.content)
      .filter((block) => block.type === "text" && typeof block.text === "string")
      .map((block) => block.text as string);
    if (said.length > 0) r.answer = said.join("");
    if (isObject(message.usage)) setTokens(r, message.usage.input, message.usage.output);
  },
];

/** Reads an agent's stdout: JSON events one a line, or plain text (then the answer is all of it). */
export function readTranscript(stdout: string): Transcript {
  const r: Reading = {
    answer: null,
    pending: "",
    calls: [],
    promptTokens: null,
    completionTokens: null,
  };
  let events = 0;
  for (const line of stdout.split("\n")) {
    const event = parseEvent(line);
    if (event === null) continue;
    events++;
    for (const read of READERS) read(event, r);
  }
  const { calls, promptTokens, completionTokens } = r;
  const answer = events === 0 ? stdout.trim() : (r.answer ?? "");
  return { answer, calls, promptTokens, completionTokens, events };
}

/** The tools through which an agent loads a skill by name (claude Skill, gemini, opencode). */
const SKILL_TOOLS = new Set(["skill", "activate_skill"]);

/**
 * Whether the transcript shows the skill delivered: a skill tool called with its name, or any
 * tool call (a file read, a shell `cat`) naming its `<name>/SKILL.md`. What the agent was merely
 * told (a system event listing the installed skills) is no proof.
 */
export function skillUsed(calls: readonly ToolCall[], skill: string): boolean {
  const file = `${skill}/SKILL.md`;
  return calls.some((call) => {
    const leaves = stringLeaves(call.input);
    if (SKILL_TOOLS.has(call.name.toLowerCase()) && leaves.some((s) => namesSkill(s, skill))) {
      return true;
    }
    return leaves.some((s) => s.includes(file));
  });
}

/** `name`, or a plugin's `plugin:name`. */
function namesSkill(value: string, skill: string): boolean {
  return value === skill || value.endsWith(`:${skill}`);
}

function stringLeaves(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringLeaves);
  if (isObject(value)) return Object.values(value).flatMap(stringLeaves);
  return [];
}

function parseEvent(line: string): Event | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function setTokens(r: Reading, prompt: unknown, completion: unknown): void {
  if (typeof prompt === "number") r.promptTokens = prompt;
  if (typeof completion === "number") r.completionTokens = completion;
}

function sum(values: readonly unknown[]): number | null {
  const numbers = values.filter((v): v is number => typeof v === "number");
  return numbers.length === 0 ? null : numbers.reduce((a, b) => a + b, 0);
}

function listOf(value: unknown): Event[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function isObject(value: unknown): value is Event {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
