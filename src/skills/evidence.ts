import type { AgentSample } from "./agent-run.js";

/** Of the transcript, the judge sees at most this many tool calls, each cut to CALL_CHARS. */
const MAX_CALLS = 40;
const CALL_CHARS = 300;
/** Of the changed files, at most this many characters in all. */
const FILES_CHARS = 20_000;

/**
 * What the judge grades an agent's sample by: its final answer, the tool calls of its transcript,
 * and the start of each file it created or changed.
 */
export function evidenceText(ran: AgentSample): string {
  const { answer, calls } = ran.transcript;
  // Paths inside the workspace are shown relative to it: the temporary folder's name would make
  // every judge prompt new (no cache hit) and says nothing of the work.
  const relative = (text: string) =>
    text.replaceAll(`${ran.workspace}/`, "").replaceAll(ran.workspace, ".");
  const shown = calls.slice(-MAX_CALLS).map((call) => {
    const input = relative(JSON.stringify(call.input ?? null));
    const cut = input.length > CALL_CHARS ? `${input.slice(0, CALL_CHARS)}…` : input;
    return `- ${call.name} ${cut}`;
  });
  const skipped = calls.length - shown.length;
  let room = FILES_CHARS;
  const files = ran.changes.map((change) => {
    const excerpt = change.excerpt.slice(0, Math.max(0, room));
    room -= excerpt.length;
    const cut = excerpt.length < change.excerpt.length || change.bytes > change.excerpt.length;
    return `--- ${change.path} (${change.bytes} bytes)\n${excerpt}${cut ? "\n[…cut]" : ""}`;
  });
  return [
    "FINAL ANSWER:",
    relative(answer) || "(none)",
    "",
    `TOOL CALLS (${calls.length}${skipped > 0 ? `, the first ${skipped} left out` : ""}):`,
    ...(shown.length > 0 ? shown : ["(none)"]),
    "",
    `FILES CREATED OR CHANGED (${ran.changes.length}):`,
    ...(files.length > 0 ? files : ["(none)"]),
  ].join("\n");
}
