import {
  completion,
  type LoopbackServer,
  lastContent,
  type Reply,
  type SeenRequest,
  startLoopbackServer,
} from "./loopback-server.js";

/** One input line of a batch, as uploaded. */
interface InputLine {
  custom_id: string;
  body: { messages: { content: string }[] };
}

/** What the batch answers one line with: a completion, an error, nothing, or a torn line. */
export type LineAnswer =
  | { text: string }
  | { status: number; message: string }
  | "none"
  | "garbage";

/**
 * A loopback OpenAI API with `/v1/files` (multipart upload, content download), `/v1/batches`
 * (create; retrieve steps through `steps`, then stays in_progress while `hold` says so) and
 * `/v1/chat/completions` answering the text `answer` gives its request (else the echo), as the
 * batch lines do.
 */
export interface BatchServer {
  server: LoopbackServer;
  baseURL: string;
  /** The statuses a batch goes through, one per retrieve; the last is final. */
  steps: string[];
  /** While true for a batch's id, that batch stays in_progress. */
  hold: (id: string) => boolean;
  /** While set, a retrieve answers HTTP 500. */
  broken: boolean;
  /**
   * Bytes of filler lines (~1 MB each, for requests the batch was not sent) that lead each
   * output file from then on, made as the file is downloaded: files larger than any string.
   */
  padding: number;
  answer: (line: InputLine) => LineAnswer;
  created: number;
  retrieves: number;
  chatRequests(): SeenRequest[];
  close(): Promise<void>;
}

export async function startBatchServer(): Promise<BatchServer> {
  const files = new Map<string, string>();
  const padded = new Map<string, number>();
  const batches = new Map<string, { input: string; polls: number }>();
  const mock: BatchServer = {
    server: await startLoopbackServer(() => ({ status: 500 })),
    baseURL: "",
    steps: ["validating", "in_progress", "completed"],
    hold: () => false,
    broken: false,
    padding: 0,
    answer: (line) => ({ text: `echo: ${line.body.messages.at(-1)?.content ?? ""}` }),
    created: 0,
    retrieves: 0,
    chatRequests: () => mock.server.requests.filter((r) => r.url.endsWith("/chat/completions")),
    close: () => mock.server.close(),
  };
  mock.baseURL = mock.server.baseURL;
  const addFile = (text: string) => {
    const id = `file-${files.size + 1}`;
    files.set(id, text);
    return {
      id,
      object: "file",
      bytes: text.length,
      created_at: 0,
      filename: "x.jsonl",
      purpose: "batch",
    };
  };
  const batchObject = (id: string, status: string, extra: object = {}) => ({
    id,
    object: "batch",
    endpoint: "/v1/chat/completions",
    completion_window: "24h",
    created_at: 0,
    input_file_id: batches.get(id)?.input,
    status,
    request_counts: { total: 0, completed: 0, failed: 0 },
    ...extra,
  });
  const finish = (id: string, status: string): object => {
    const lines = inputLines(files.get(batches.get(id)?.input ?? "") ?? "");
    const out: string[] = [];
    const errors: string[] = [];
    for (const line of lines) {
      const answer = mock.answer(line);
      if (answer === "none") continue;
      if (answer === "garbage") {
        out.push(`{"custom_id": "${line.custom_id}", "response": {`);
        continue;
      }
      if ("text" in answer) {
        const body = completion(answer.text);
        out.push(
          JSON.stringify({ custom_id: line.custom_id, response: { status_code: 200, body } }),
        );
      } else {
        const body = { error: { message: answer.message } };
        const response = { status_code: answer.status, body };
        errors.push(JSON.stringify({ custom_id: line.custom_id, response }));
      }
    }
    const file = (rows: string[]) =>
      rows.length === 0 ? null : addFile(`${rows.join("\n")}\n`).id;
    const output = file(out);
    if (output !== null && mock.padding > 0) padded.set(output, mock.padding);
    return batchObject(id, status, {
      output_file_id: output,
      error_file_id: file(errors),
      request_counts: { total: lines.length, completed: out.length, failed: errors.length },
      ...(status === "failed"
        ? { errors: { data: [{ message: "the input file is invalid" }] } }
        : {}),
    });
  };
  mock.server.script = (request): Reply => {
    const { method, url } = request;
    if (url.endsWith("/chat/completions")) {
      // A direct call gets the text its batch line would (by default the echo).
      const answer = mock.answer({ custom_id: "direct", body: request.json as InputLine["body"] });
      const text = typeof answer === "object" && "text" in answer ? answer.text : null;
      return { body: completion(text ?? `echo: ${lastContent(request)}`) };
    }
    if (method === "POST" && url.endsWith("/files"))
      return { body: addFile(uploaded(request.body)) };
    if (method === "POST" && url.endsWith("/batches")) {
      const id = `batch_${++mock.created}`;
      batches.set(id, {
        input: String((request.json as { input_file_id?: string }).input_file_id),
        polls: 0,
      });
      return { body: batchObject(id, "validating") };
    }
    const content = /\/files\/([^/]+)\/content$/.exec(url);
    if (content) {
      const text = files.get(content[1] ?? "") ?? "";
      const padding = padded.get(content[1] ?? "") ?? 0;
      return padding > 0 ? { stream: () => paddedFile(text, padding) } : { body: text };
    }
    const retrieve = /\/batches\/([^/?]+)$/.exec(url);
    const batch = retrieve ? batches.get(retrieve[1] ?? "") : undefined;
    if (!retrieve || batch === undefined)
      return { status: 404, body: { error: { message: "no such thing" } } };
    mock.retrieves++;
    if (mock.broken)
      return { status: 500, body: { error: { message: "the batch service is down" } } };
    const id = retrieve[1] ?? "";
    const step = mock.hold(id)
      ? "in_progress"
      : mock.steps[Math.min(batch.polls++, mock.steps.length - 1)];
    const final = step !== "validating" && step !== "in_progress";
    return {
      body: final ? finish(id, step ?? "completed") : batchObject(id, step ?? "in_progress"),
    };
  };
  return mock;
}

/** `padding` bytes of answer lines to requests no batch was sent, then the file's own lines. */
function* paddedFile(text: string, padding: number): Generator<Uint8Array> {
  const body = Buffer.from(JSON.stringify(completion("f".repeat(1 << 20))));
  for (let sent = 0, line = 0; sent < padding; line++) {
    const head = Buffer.from(
      `{"custom_id": "filler-${line}", "response": {"status_code": 200, "body": `,
    );
    const tail = Buffer.from("}}\n");
    yield head;
    yield body;
    yield tail;
    sent += head.length + body.length + tail.length;
  }
  yield Buffer.from(text);
}

/** The JSONL part of a multipart upload. */
function uploaded(body: string): string {
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('{"custom_id"'))
    .join("\n");
}

function inputLines(text: string): InputLine[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as InputLine);
}
