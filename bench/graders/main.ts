/**
 * What a script or command grader costs: one process per sample. N cases, each answered by the
 * same --target command, graded by `equals` (no process), a `script` grader (Python) or a
 * `command` grader (Node); the difference per sample is the grader's process. Rounds interleaved.
 *
 *   bench/run.sh graders [--cases 200] [--rounds 5]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { flag } from "../args.js";
import { childrenCpuSeconds } from "../cpu.js";
import { median } from "../median.js";

const CLI = path.resolve(import.meta.dirname, "../../../dist/bin/eb.js");
const cases = Number(flag(process.argv, "cases", "200"));
const rounds = Number(flag(process.argv, "rounds", "5"));

const GRADERS: Record<string, object> = {
  equals: { type: "equals", value: "42" },
  script: {
    type: "script",
    script: "import json, sys\nassert json.load(open(sys.argv[1]))['answer'].strip() == '42'",
  },
  command: { type: "command", command: "node grade.mjs" },
};

function project(grader: object): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "eb-bench-graders-"));
  const line = (i: number) =>
    JSON.stringify({ id: `c${i}`, messages: [{ role: "user", content: "q" }], graders: [grader] });
  writeFileSync(
    path.join(root, "cases.jsonl"),
    `${Array.from({ length: cases }, (_, i) => line(i)).join("\n")}\n`,
  );
  writeFileSync(path.join(root, "answer.cjs"), "process.stdout.write('42')");
  writeFileSync(
    path.join(root, "grade.mjs"),
    "let t='';process.stdin.on('data',(c)=>(t+=c)).on('end',()=>process.exit(JSON.parse(t).answer.trim()==='42'?0:1));",
  );
  return root;
}

const roots = Object.fromEntries(Object.entries(GRADERS).map(([name, g]) => [name, project(g)]));
const wall: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (let round = 0; round < rounds; round++) {
  for (const [name, root] of Object.entries(roots)) {
    const cpuBefore = childrenCpuSeconds();
    const started = performance.now();
    execFileSync(
      process.execPath,
      [CLI, "eval", "cases.jsonl", "--target", "node answer.cjs", "--report-formats", "none"],
      {
        cwd: root,
        stdio: "ignore",
      },
    );
    (wall[name] ??= []).push((performance.now() - started) / 1000);
    (cpu[name] ??= []).push(childrenCpuSeconds() - cpuBefore);
  }
}
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ");
console.log(
  `bench/graders: ${cases} cases × 1 sample, --target "node answer.cjs", 8 at once; median of ${rounds} rounds; ${os.cpus().length} CPUs, load ${load}`,
);
const base = { wall: median(wall.equals!), cpu: median(cpu.equals!) };
for (const name of Object.keys(GRADERS)) {
  const w = median(wall[name]!);
  const c = median(cpu[name]!);
  const extra =
    name === "equals"
      ? ""
      : `  per sample: +${(((w - base.wall) / cases) * 1000).toFixed(1)} ms wall, +${(((c - base.cpu) / cases) * 1000).toFixed(1)} ms CPU`;
  console.log(`${name.padEnd(8)} wall ${w.toFixed(2)} s  cpu ${c.toFixed(2)} s${extra}`);
}
