import { readFile } from "node:fs/promises";
import { z } from "zod";
import { InputError } from "../errors.js";
import type { CheckResult } from "./report.js";

const status = z.enum(["passed", "failed", "error"]);

/** `checks/<stem>.json` of one sample, as this program writes it. */
const sampleResultSchema = z.object({
  check_id: z.string(),
  check_type: z.enum(["deterministic", "harness_judge"]),
  description: z.string(),
  source_path: z.string(),
  tags: z.array(z.string()),
  status,
  score: z.number().min(0).max(1),
  started_at: z.string(),
  completed_at: z.string(),
  duration_ms: z.number(),
  reason: z.string().nullable(),
  error_detail: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number().int().nullable(),
  details: z.record(z.string(), z.unknown()),
  check_definition_sha256: z.string(),
});

/** A sample's result written by an earlier attempt of the run, for `--resume`. */
export async function readSampleResult(file: string): Promise<CheckResult> {
  const text = await readFile(file, "utf8").catch(() => null);
  const parsed = text === null ? null : sampleResultSchema.safeParse(parseJson(text));
  if (parsed?.success) return parsed.data;
  throw new InputError(
    `--resume: ${file} is missing or damaged, though rows.jsonl lists its sample. Start a new run instead.`,
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
