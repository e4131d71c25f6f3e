/**
 * The limit of bench/loop: what a user would write in 40 lines of Node to do what `eb eval` does
 * for the bench's cases, with nothing else (no cache, no run folder, no report). Run as
 * `node loop.js BASE_URL CASES_FILE WORKERS`; prints how many cases passed all their checks.
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";

interface Grader {
  type: string;
  all?: string[];
  pattern?: string;
  fields?: Record<string, string>;
}
interface Case {
  messages: { role: string; content: string }[];
  graders: Grader[];
}

const [baseURL, file, workers] = process.argv.slice(2) as [string, string, string];
const cases = readFileSync(file, "utf8")
  .trim()
  .split("\n")
  .map((line): Case => JSON.parse(line));
const agent = new Agent({ keepAlive: true });

function post(body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", authorization: "Bearer bench-key" };
    const req = request(
      `${baseURL}/chat/completions`,
      { method: "POST", headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function check(grader: Grader, text: string): boolean {
  if (grader.type === "contains") return (grader.all ?? []).every((t) => text.includes(t));
  if (grader.type === "regex") return new RegExp(grader.pattern ?? "", "is").test(text);
  const doc: Record<string, unknown> = JSON.parse(text);
  return Object.entries(grader.fields ?? {}).every(([field, type]) => typeof doc[field] === type);
}

let next = 0;
let passed = 0;
async function lane(): Promise<void> {
  for (let c = cases[next++]; c !== undefined; c = cases[next++]) {
    const body = JSON.stringify({ model: "bench", messages: c.messages, temperature: 0 });
    const text: string = JSON.parse(await post(body)).choices[0].message.content;
    if (c.graders.every((grader) => check(grader, text))) passed++;
  }
}

await Promise.all(Array.from({ length: Number(workers) }, lane));
console.log(passed);
// Idle keep-alive sockets would hold the process until the server drops them.
process.exit(0);
