/**
 * What a page is made of, shared by the renderer (page.ts, in Node) and the page's script
 * (client/, in the browser). Plain JSON: no Map, no Date, no undefined.
 */

import type { LeaderboardEntry } from "../../report/blocks.js";
import type { RunDocument } from "../../report/document.js";

/**
 * What `htmlPage` renders. One document: a run (a pairwise run when it has `pairwise`, a merged
 * one when `run.merged` is set). Two, the second with `compare`: the baseline, then the
 * candidate. Several with `leaderboard`: the runs ranked, in the entries' order.
 */
export interface Page {
  title?: string;
  documents: RunDocument[];
  /**
   * For each document, the path from the page's folder to its run folder, `/`-separated: links
   * to a sample's files (relative to the run folder) go through it. Absent or "": the page sits
   * in the run folder.
   */
  runHrefs?: string[];
  leaderboard: LeaderboardEntry[] | null;
  /** What decided a leaderboard's marks (`ruleLine`), shown under its headline. */
  rule?: string;
  /** Reasons to read the page with care that no one document holds (a leaderboard's). */
  warnings?: string[];
}

/** One document as the page's script gets it. */
export interface RunData {
  doc: RunDocument;
  /** `Page.runHrefs[i]`, ending in `/` unless empty. */
  href: string;
  /** `Interrupted: 3 of 10 items never ran`, as the terminal says it; null when all ran. */
  notRun: string | null;
  /** Each judge's noise, as the terminal says it. */
  judges: string[];
  /** The leaderboard the document carries (eb eval's arms, in the last arm's), as a page shows it. */
  board: BoardData | null;
}

/** A leaderboard's row: the entry, and its cells and mark as the terminal writes them. */
export interface BoardRow {
  entry: LeaderboardEntry;
  cells: string[];
  mark: string;
}

export interface BoardData {
  rows: BoardRow[];
  /** Which runs have no cost, and why (empty when every run's is known). */
  costUnknown: string;
}

/** The JSON embedded in the page. */
export interface PageData {
  title: string;
  /** Characters kept of each answer, output and input (the rest is in the run folder). */
  excerptChars: number;
  runs: RunData[];
  leaderboard: BoardData | null;
  rule: string | null;
  warnings: string[];
}
