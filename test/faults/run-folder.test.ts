import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RowWriter } from "../../src/run/rows.js";
import {
  CLI,
  type CliResult,
  cleanEnv,
  deterministicYaml,
  makeProject,
  runEb,
  waitForFileScript,
  writeFile,
} from "../helpers/project.js";

/** Every line of a rows file parses; the rows (manifest left out). */
function wholeRows(runDir: string): { id: string; sample: number }[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").split("\n");
  expect(lines.at(-1)).toBe("");
  const parsed = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(parsed[0]).toHaveProperty("manifest");
  return parsed.slice(1) as { id: string; sample: number }[];
}

function checksProject(count: number, script = "pass"): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    files[`eval_checks/c${i}.yaml`] = deterministicYaml(`c${i}`, script);
  return makeProject(files);
}

function start(args: readonly string[]): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv() });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr })),
  );
  return { child, done };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) {
    try {
      execFileSync("umount", [dir]);
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A tmpfs of `size` (e.g. "64k"). Where mounting is not permitted the test is marked skipped:
 * it must not pass without having run.
 */
function tinyDisk(skip: (note: string) => never, size: string, readOnly = false): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-disk-"));
  try {
    execFileSync("mount", [
      "-t",
      "tmpfs",
      "-o",
      `size=${size}${readOnly ? ",ro" : ""}`,
      "tmpfs",
      dir,
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    skip(`cannot mount a tmpfs here (${String(error).split("\n")[0]})`);
  }
  mounts.push(dir);
  return dir;
}

/** Fills the disk `dir` is on to its last byte. */
function fillUp(dir: string): void {
  const fd = openSync(path.join(dir, "filler"), "w");
  try {
    for (;;) writeSync(fd, Buffer.alloc(1024));
  } catch (error) {
    expect(String(error)).toContain("ENOSPC");
  } finally {
    closeSync(fd);
  }
}

/** `eb eval` of `count` cases whose answers are 1000 characters: the rows fill a disk quickly. */
function bulkyEvalProject(count: number): { project: string; args: (out: string) => string[] } {
  const project = makeProject({
    "answer.mjs":
      'process.stdin.resume();\nprocess.stdin.on("end", () => process.stdout.write("x".repeat(1000)));\n',
    "cases.jsonl": Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        id: `c${i}`,
        messages: [{ role: "user", content: "hi" }],
        graders: [{ type: "contains", all: ["x"] }],
      }),
    )
      .map((line) => `${line}\n`)
      .join(""),
  });
  const target = `node ${path.join(project, "answer.mjs")}`;
  const args = (out: string) => [
    "eval",
    path.join(project, "cases.jsonl"),
    "--target",
    target,
    "--flat-output",
    "--output-dir",
    out,
  ];
  return { project, args };
}

describe("one writer per run folder", () => {
  it("two eb run --flat-output into one empty folder: one runs, the other is refused", async () => {
    const project = checksProject(4);
    for (let trial = 0; trial < 6; trial++) {
      const out = path.join(project, `out-${trial}`);
      mkdirSync(out);
      const args = ["run", "--cwd", project, "--flat-output", "--output-dir", out];
      const [a, b] = await Promise.all([start(args).done, start(args).done]);
      const codes = [a.code, b.code].sort();
      expect(codes).toEqual([0, 2]);
      const refused = a.code === 2 ? a : b;
      expect(refused.stderr).toMatch(/being written by another eb|the folder is not empty/);
      expect(refused.stderr).not.toContain("unexpected failure");
      expect(
        wholeRows(out)
          .map((row) => row.id)
          .sort(),
      ).toEqual(["c0", "c1", "c2", "c3"]);
      expect(existsSync(path.join(out, ".eval-banana.lock"))).toBe(false);
    }
  });

  it("--resume of a folder still being written is refused; after a kill -9 it is taken over", async () => {
    const wait = waitForFileScript("go");
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", wait),
    });
    const out = path.join(project, "out");
    const first = start(["run", "--cwd", project, "--flat-output", "--output-dir", out]);
    await until(
      () => existsSync(path.join(out, "rows.jsonl")) && wholeRows(out).length === 1,
      "check a",
    );
    const second = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`being written by another eb (pid ${first.child.pid})`);

    first.child.kill("SIGKILL");
    await first.done;
    expect(existsSync(path.join(out, ".eval-banana.lock"))).toBe(true);
    writeFile(project, "go", "");
    const resumed = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(
      wholeRows(out)
        .map((row) => row.id)
        .sort(),
    ).toEqual(["a", "b"]);
  });
});

describe("--resume refuses without touching anything", () => {
  it("a last row that lost only its newline is a row; a refusal leaves the file byte for byte", async () => {
    const project = checksProject(2);
    const out = path.join(project, "out");
    expect(
      (await runEb(["run", "--cwd", project, "--flat-output", "--output-dir", out])).code,
    ).toBe(0);
    const file = path.join(out, "rows.jsonl");
    // Drop c1's row and the newline after c0's: as a crash between two writes leaves it.
    const lines = readFileSync(file, "utf8").split("\n");
    const c0 = lines.findIndex((line) => line.includes('"id":"c0"'));
    const manifest = lines[0]!.replace(/"ended_at":"[^"]*"/, '"ended_at":null');
    writeFileSync(file, `${manifest}\n${lines[c0]}`);
    const before = readFileSync(file);

    writeFile(project, "eval_checks/c1.yaml", deterministicYaml("c1", "print('changed')"));
    const refused = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("definitions changed");
    expect(readFileSync(file).equals(before)).toBe(true);

    writeFile(project, "eval_checks/c1.yaml", deterministicYaml("c1", "pass"));
    const resumed = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(wholeRows(out).map((row) => row.id)).toEqual(["c0", "c1"]);
  });

  it.each([
    ["an empty rows file", (dir: string) => writeFileSync(path.join(dir, "rows.jsonl"), "")],
    [
      "a torn first line",
      (dir: string) => writeFileSync(path.join(dir, "rows.jsonl"), '{"manifest": {"tool": "eval'),
    ],
    [
      "rows without a manifest",
      (dir: string) => writeFileSync(path.join(dir, "rows.jsonl"), '{"id":"c0","score":1}\n'),
    ],
    ["a folder named rows.jsonl", (dir: string) => mkdirSync(path.join(dir, "rows.jsonl"))],
  ])("--resume on %s: a one-line error, exit 2", async (_what, make) => {
    const project = checksProject(1);
    const out = path.join(project, "out");
    mkdirSync(out);
    make(out);
    const result = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--resume .*: (not a run folder|its manifest is not one eb wrote)/,
    );
    expect(result.stderr).not.toContain("unexpected failure");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("an output folder eb cannot create", () => {
  it.each([
    ["a regular file", (project: string) => writeFile(project, "out", "x")],
    [
      "a symbolic link loop",
      (project: string) => {
        symlinkSync(path.join(project, "loop-b"), path.join(project, "loop-a"));
        symlinkSync(path.join(project, "loop-a"), path.join(project, "loop-b"));
        return path.join(project, "loop-a", "out");
      },
    ],
  ])("--output-dir through %s: a one-line error, exit 2, nothing run", async (_what, make) => {
    const project = checksProject(1);
    const out = make(project);
    const result = await runEb(["run", "--cwd", project, "--output-dir", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot create the run folder");
    expect(result.stderr).not.toContain("unexpected failure");
  });

  it("--output-dir on a read-only mount: a one-line error, exit 2", async ({ skip }) => {
    const disk = tinyDisk(skip, "64k", true);
    const project = checksProject(1);
    const result = await runEb(["run", "--cwd", project, "--output-dir", disk]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("EROFS (read-only file system)");
  });
});

describe("a full disk", () => {
  it.for([
    ["eb eval", (out: string) => bulkyEvalProject(1).args(out)],
    [
      "eb run",
      (out: string) => ["run", "--cwd", checksProject(1), "--flat-output", "--output-dir", out],
    ],
  ] as const)(
    "full from the start, %s: a one-line error, exit 2, nothing left behind",
    async ([_what, command], { skip }) => {
      const disk = tinyDisk(skip, "64k");
      fillUp(disk);
      const out = path.join(disk, "run");
      const result = await runEb(command(out));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("ENOSPC (no space left on device)");
      expect(result.stderr).not.toContain("unexpected failure");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(readdirSync(out)).toEqual([]);
    },
  );

  it("--resume onto a disk full since: a one-line error, exit 2, the rows untouched", async ({
    skip,
  }) => {
    const disk = tinyDisk(skip, "64k");
    const project = checksProject(2);
    const out = path.join(disk, "run");
    const args = ["run", "--cwd", project, "--flat-output", "--output-dir", out];
    expect((await runEb(args)).code).toBe(0);
    const file = path.join(out, "rows.jsonl");
    // As a kill after c0's row leaves it: c1 is still to run.
    const lines = readFileSync(file, "utf8").split("\n");
    const manifest = lines[0]!.replace(/"ended_at":"[^"]*"/, '"ended_at":null');
    writeFileSync(file, `${manifest}\n${lines.find((line) => line.includes('"id":"c0"'))}\n`);
    const before = readFileSync(file);
    fillUp(disk);

    const resumed = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain("ENOSPC (no space left on device)");
    expect(resumed.stderr).not.toContain("unexpected failure");
    expect(resumed.stderr.trim().split("\n")).toHaveLength(1);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(out).filter((name) => name.includes(".lock"))).toEqual([]);
  });

  it("fills up while eb eval writes rows: exit 1, whole lines only, --resume finishes it", async ({
    skip,
  }) => {
    const disk = tinyDisk(skip, "16k");
    const { args } = bulkyEvalProject(40);
    const out = path.join(disk, "run");
    const full = await runEb(args(out));
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("ENOSPC (no space left on device)");
    expect(full.stderr).toContain(`--resume ${out}`);
    expect(full.stderr).not.toContain("unexpected failure");
    expect(wholeRows(out).length).toBeLessThan(40);

    execFileSync("mount", ["-o", "remount,size=16m", disk]);
    const resumed = await runEb(["eval", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = wholeRows(out).map((row) => row.id);
    expect(new Set(ids).size).toBe(40);
    expect(ids).toHaveLength(40);
  });

  it("a row never goes half on disk: what fits stays, whole lines only", ({ skip }) => {
    const disk = tinyDisk(skip, "16k");
    const writer = RowWriter.create(path.join(disk, "rows.jsonl"), { kind: "cases" });
    const row = { id: "r", text: "y".repeat(1000) };
    let failure: unknown = null;
    for (let i = 0; i < 100 && failure === null; i++) {
      try {
        writer.append(row);
        writer.flush();
      } catch (error) {
        failure = error;
      }
    }
    expect(String(failure)).toContain("ENOSPC");
    writer.abandon();
    const rows = wholeRows(disk);
    expect(rows.length).toBeGreaterThan(5);
    for (const kept of rows) expect(kept).toEqual(row);
  });

  it("stops the run with exit 1 and a message; the rows stay valid; --resume finishes it", async ({
    skip,
  }) => {
    const disk = tinyDisk(skip, "48k");
    const project = checksProject(60);
    const out = path.join(disk, "run");
    const full = await runEb(["run", "--cwd", project, "--flat-output", "--output-dir", out]);
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("ENOSPC (no space left on device)");
    expect(full.stderr).toContain(`--resume ${out}`);
    expect(full.stderr).not.toContain("unexpected failure");
    expect(wholeRows(out).length).toBeLessThan(60);

    execFileSync("mount", ["-o", "remount,size=16m", disk]);
    const resumed = await runEb(["run", "--cwd", project, "--resume", out]);
    expect(resumed.code).toBe(0);
    const ids = wholeRows(out).map((row) => row.id);
    expect(new Set(ids).size).toBe(60);
    expect(ids).toHaveLength(60);
    expect(readdirSync(path.join(out, "checks")).filter((f) => f.endsWith(".json"))).toHaveLength(
      60,
    );
  });

  it("a check printing more than the disk holds: an error, exit 1, no crash", async ({ skip }) => {
    const disk = tinyDisk(skip, "64k");
    const project = makeProject({
      "eval_checks/loud.yaml": deterministicYaml("loud", "print('x' * 400_000)"),
    });
    const out = path.join(disk, "run");
    const result = await runEb(["run", "--cwd", project, "--flat-output", "--output-dir", out]);
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).toContain("ENOSPC (no space left on device)");
    expect(result.stderr).not.toContain("unexpected failure");
  });
});
