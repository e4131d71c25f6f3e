import { readFile } from "node:fs/promises";
import { z } from "zod";
import { InputError, throwProblems } from "../errors.js";

/** One person's verdict on one sample, as graded by one grader. */
export interface Label {
  /** The line of the labels file, from 1. */
  line: number;
  id: string;
  /** A label without `sample` is of sample 0: the only one at k = 1. */
  sample: number;
  grader: string;
  label: 0 | 1;
}

/** Fields other than these (a note, who labelled) are allowed and ignored. */
const labelSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number().finite()]).transform(String),
  sample: z.number().int().min(0).optional(),
  grader: z.string().min(1),
  label: z.union([z.literal(0), z.literal(1)]),
});

const FORMAT =
  'each line is one JSON object {"id", "sample"?, "grader", "label": 0 or 1} (label 1: a person passes the sample)';

/** The labels of LABELS.jsonl; every bad line at once, each as file:line, what, and what to do. */
export async function readLabels(file: string): Promise<Label[]> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`${file}: cannot read the labels file (${error.code}) — check the path`);
  });
  const labels: Label[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  // A byte-order mark (some editors write one) is not part of the first line's JSON.
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    const parsed = parseLabel(raw);
    if (typeof parsed === "string") {
      problems.push(`${file}:${line}: ${parsed} — ${FORMAT}`);
      return;
    }
    const label = { line, ...parsed };
    const key = labelKey(label.id, label.sample, label.grader);
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push(
        `${file}:${line}: a second label of id ${JSON.stringify(label.id)}, sample ${label.sample}, grader ${JSON.stringify(label.grader)} (the first is on line ${first}) — keep one`,
      );
      return;
    }
    seen.set(key, line);
    labels.push(label);
  });
  throwProblems(problems);
  if (labels.length === 0) {
    throw new InputError(`${file}: no labels — ${FORMAT}`);
  }
  return labels;
}

function parseLabel(raw: string): Omit<Label, "line"> | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return "not valid JSON";
  }
  const parsed = labelSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".");
    return field ? `"${field}": ${issue.message}` : issue.message;
  }
  const { id, sample, grader, label } = parsed.data;
  return { id, sample: sample ?? 0, grader, label };
}

/** One key per (id, sample, grader): what a label and a row's mark are joined on. */
export function labelKey(id: string, sample: number, grader: string): string {
  return `${id}\0${sample}\0${grader}`;
}
