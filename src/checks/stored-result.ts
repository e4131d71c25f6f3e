import { readFile } from "node:fs/promises";
import { z } from "zod";
import { InputError } from "../errors.js";
import { parseJsonOrNull } from "../report/json.js";
import { type CheckResult, checkSampleSchema } from "./report.js";

/** `checks/<stem>.json` of one sample, as this program writes it (fields it does not know dropped). */
const sampleResultSchema = z.object(checkSampleSchema.shape);

/** A sample's result written by an earlier attempt of the run, for `--resume`. */
export async function readSampleResult(file: string): Promise<CheckResult> {
  const text = await readFile(file, "utf8").catch(() => null);
  const parsed = text === null ? null : sampleResultSchema.safeParse(parseJsonOrNull(text));
  if (parsed?.success) return parsed.data;
  throw new InputError(
    `--resume: ${file} is missing or damaged, though rows.jsonl lists its sample. Start a new run instead.`,
  );
}
