import { describe, expect, it } from "vitest";
import { readTranscript, skillUsed } from "../../src/agents/transcript.js";

const jsonl = (...events: object[]) => events.map((e) => JSON.stringify(e)).join("\n");
const SKILL = "/tmp/ws/.claude/skills/banana-report/SKILL.md";

describe("agent transcripts", () => {
  it("reads claude stream-json: tool_use blocks, the result, tokens with cache reads", () => {
    const t = readTranscript(
      jsonl(
        { type: "system", subtype: "init", session_id: "s", skills: ["banana-report"] },
        {
          type: "assistant",
          message: {
            role: "assistant",
            content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: SKILL } }],
          },
        },
        {
          type: "user",
          message: {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }],
          },
        },
        {
          type: "assistant",
          message: { role: "assistant", content: [{ type: "text", text: "draft" }] },
        },
        {
          type: "result",
          subtype: "success",
          result: "Done.",
          usage: {
            input_tokens: 10,
            cache_read_input_tokens: 90,
            cache_creation_input_tokens: 5,
            output_tokens: 7,
          },
        },
      ),
    );
    expect(t).toEqual({
      answer: "Done.",
      calls: [{ name: "Read", input: { file_path: SKILL } }],
      promptTokens: 105,
      completionTokens: 7,
      events: 5,
    });
    expect(skillUsed(t.calls, "banana-report")).toBe(true);
    expect(skillUsed(t.calls, "other")).toBe(false);
  });

  it("is no proof when the agent is only told of the skill, or reads another file", () => {
    const t = readTranscript(
      jsonl(
        { type: "system", subtype: "init", skills: ["banana-report"], cwd: SKILL },
        {
          type: "assistant",
          message: {
            content: [
              {
                type: "tool_use",
                name: "Read",
                input: { file_path: "/tmp/ws/banana-report/README.md" },
              },
            ],
          },
        },
        { type: "result", result: "ok" },
      ),
    );
    expect(skillUsed(t.calls, "banana-report")).toBe(false);
  });

  it("takes a skill tool called with the skill's name (claude Skill, gemini activate_skill, opencode skill)", () => {
    expect(skillUsed([{ name: "Skill", input: { skill: "banana-report" } }], "banana-report")).toBe(
      true,
    );
    expect(
      skillUsed([{ name: "Skill", input: { skill: "plugin:banana-report" } }], "banana-report"),
    ).toBe(true);
    expect(
      skillUsed([{ name: "activate_skill", input: { name: "banana-report" } }], "banana-report"),
    ).toBe(true);
    expect(skillUsed([{ name: "Skill", input: { skill: "banana" } }], "banana-report")).toBe(false);
    expect(
      skillUsed([{ name: "Bash", input: { command: "echo banana-report" } }], "banana-report"),
    ).toBe(false);
  });

  it("reads gemini stream-json: tool_use events, assistant deltas after the last call, stats", () => {
    const t = readTranscript(
      jsonl(
        { type: "init", session_id: "s", model: "gemini-x" },
        { type: "message", role: "user", content: "Make a banana report" },
        { type: "message", role: "assistant", content: "Let me look", delta: true },
        {
          type: "tool_use",
          tool_name: "activate_skill",
          tool_id: "a",
          parameters: { name: "banana-report" },
        },
        { type: "tool_result", tool_id: "a", status: "success", output: "..." },
        { type: "message", role: "assistant", content: "Wrote ", delta: true },
        { type: "message", role: "assistant", content: "report.txt", delta: true },
        {
          type: "result",
          status: "success",
          stats: { input_tokens: 50, output_tokens: 9, total_tokens: 59 },
        },
      ),
    );
    expect(t.answer).toBe("Wrote report.txt");
    expect(t.calls).toEqual([{ name: "activate_skill", input: { name: "banana-report" } }]);
    expect([t.promptTokens, t.completionTokens]).toEqual([50, 9]);
    expect(skillUsed(t.calls, "banana-report")).toBe(true);
  });

  it("reads codex --json: a shell cat of SKILL.md is a read of it", () => {
    const t = readTranscript(
      jsonl(
        { type: "thread.started", thread_id: "t" },
        { type: "item.completed", item: { id: "0", type: "reasoning", text: "thinking" } },
        {
          type: "item.completed",
          item: {
            id: "1",
            type: "command_execution",
            command: "bash -lc 'cat .agents/skills/banana-report/SKILL.md'",
            exit_code: 0,
          },
        },
        {
          type: "item.completed",
          item: { id: "2", type: "agent_message", text: "Report written." },
        },
        {
          type: "turn.completed",
          usage: { input_tokens: 30, cached_input_tokens: 10, output_tokens: 4 },
        },
      ),
    );
    expect(t.answer).toBe("Report written.");
    expect(t.calls.map((c) => c.name)).toEqual(["command_execution"]);
    const listed = readTranscript(
      jsonl({
        type: "item.completed",
        item: {
          type: "command_execution",
          command: "find . -name SKILL.md",
          aggregated_output: "./.agents/skills/banana-report/SKILL.md\n",
        },
      }),
    );
    expect(skillUsed(listed.calls, "banana-report")).toBe(false);
    expect([t.promptTokens, t.completionTokens]).toEqual([30, 4]);
    expect(skillUsed(t.calls, "banana-report")).toBe(true);
  });

  it("reads opencode --format json parts and pi --mode json events", () => {
    const opencode = readTranscript(
      jsonl(
        {
          type: "tool_use",
          sessionID: "ses",
          part: {
            type: "tool",
            tool: "skill",
            state: { status: "completed", input: { name: "banana-report" } },
          },
        },
        { type: "text", sessionID: "ses", part: { type: "text", text: "Done" } },
        {
          type: "step_finish",
          sessionID: "ses",
          part: { type: "step-finish", tokens: { input: 8, output: 2 } },
        },
      ),
    );
    expect(opencode).toMatchObject({ answer: "Done", promptTokens: 8, completionTokens: 2 });
    expect(skillUsed(opencode.calls, "banana-report")).toBe(true);
    const pi = readTranscript(
      jsonl(
        {
          type: "tool_execution_start",
          toolCallId: "c",
          toolName: "read",
          args: { path: ".pi/skills/banana-report/SKILL.md" },
        },
        {
          type: "message_end",
          message: {
            role: "assistant",
            content: [{ type: "text", text: "All done" }],
            usage: { input: 12, output: 3 },
          },
        },
      ),
    );
    expect(pi).toMatchObject({ answer: "All done", promptTokens: 12, completionTokens: 3 });
    expect(skillUsed(pi.calls, "banana-report")).toBe(true);
  });

  it("takes plain output as the answer, with no calls", () => {
    expect(readTranscript("I wrote the report.\n")).toEqual({
      answer: "I wrote the report.",
      calls: [],
      promptTokens: null,
      completionTokens: null,
      events: 0,
    });
  });
});
