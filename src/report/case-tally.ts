import type { CaseRow } from "../cases/run-case.js";

/** One item's aggregate; `id`, `sum`, `n` and `stratum` are the shape src/stats reads. */
export interface ItemTally {
  id: string;
  stratum: string;
  /** Samples recorded. */
  n: number;
  /** Sum of the sample scores (each 0 or 1). */
  sum: number;
  errors: number;
  cached: number;
  /** Why the first failing or erroring sample fell short, for the reports. */
  problem: string | null;
}

export interface TokenTotals {
  prompt: number;
  completion: number;
  judge_prompt: number;
  judge_completion: number;
}

/**
 * Aggregates rows as they arrive, so a run keeps per-item counts in memory but never the rows
 * themselves (their texts can be large; they are on disk in rows.jsonl).
 */
export class CaseTally {
  /** In case-file order; items that never ran keep n = 0. */
  readonly items = new Map<string, ItemTally>();
  readonly failuresByGrader = new Map<string, number>();
  readonly modelVersions = new Set<string>();
  readonly tokens: TokenTotals = { prompt: 0, completion: 0, judge_prompt: 0, judge_completion: 0 };
  samples = 0;
  passed = 0;
  errors = 0;
  cached = 0;

  constructor(cases: readonly { id: string; stratum: string }[]) {
    for (const c of cases) {
      this.items.set(c.id, {
        id: c.id,
        stratum: c.stratum,
        n: 0,
        sum: 0,
        errors: 0,
        cached: 0,
        problem: null,
      });
    }
  }

  add(row: CaseRow): void {
    const item = this.items.get(row.id);
    if (!item) throw new Error(`row for unknown case "${row.id}"`);
    item.n++;
    item.sum += row.score;
    this.samples++;
    this.passed += row.score;
    if (row.cached) {
      item.cached++;
      this.cached++;
    }
    if (row.status === "error") {
      item.errors++;
      this.errors++;
    }
    if (row.status !== "passed") item.problem ??= problemOf(row);
    if (row.model_version !== null) this.modelVersions.add(row.model_version);
    for (const [name, pass] of Object.entries(row.marks)) {
      if (!pass) this.failuresByGrader.set(name, (this.failuresByGrader.get(name) ?? 0) + 1);
    }
    this.addTokens(row);
  }

  /** Items with at least one sample: an interrupted run leaves some without. */
  ranItems(): ItemTally[] {
    return [...this.items.values()].filter((item) => item.n > 0);
  }

  private addTokens(row: CaseRow): void {
    this.tokens.prompt += row.prompt_tokens ?? 0;
    this.tokens.completion += row.completion_tokens ?? 0;
    this.tokens.judge_prompt += row.judge_prompt_tokens ?? 0;
    this.tokens.judge_completion += row.judge_completion_tokens ?? 0;
  }
}

/** Mean of the item scores (the item is the unit); null without items. */
export function meanItemScore(items: readonly ItemTally[]): number | null {
  if (items.length === 0) return null;
  return items.reduce((sum, item) => sum + item.sum / item.n, 0) / items.length;
}

function problemOf(row: CaseRow): string {
  const sample = `sample ${row.sample}: `;
  if (row.status === "error") return `${sample}error: ${row.error ?? "unknown error"}`;
  const failed = Object.entries(row.marks).filter(([, pass]) => !pass);
  const why = failed.map(
    ([name]) => `${name}${row.reasons?.[name] ? ` (${row.reasons[name]})` : ""}`,
  );
  return `${sample}failed ${why.join(", ")}`;
}
