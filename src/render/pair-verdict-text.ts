/** What each verdict of `eb pairwise` means; apart, so the HTML page can show it without the rest. */
export const PAIR_VERDICT_TEXT = {
  pass: "PASS: the candidate's answers are not worse than the baseline's by more than the margin",
  regression: "REGRESSION: the judge prefers the baseline's answers, beyond the margin",
  inconclusive: "INCONCLUSIVE: this run cannot tell the candidate's answers from the baseline's",
} as const;
