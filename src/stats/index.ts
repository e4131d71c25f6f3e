export { type BootstrapOptions, bootstrapMeanInterval } from "./bootstrap.js";
export {
  type CompareOptions,
  type Comparison,
  comparePaired,
  type PairedScores,
  pairedDeltaInterval,
  type StratumDelta,
  type Verdict,
} from "./compare.js";
export {
  DEFAULT_INTERVAL_METHOD,
  flakyItems,
  type Interval,
  type IntervalMethod,
  type IntervalOptions,
  type ItemAgg,
  itemScore,
  passRateByStratum,
  passRateInterval,
  type StratumInterval,
} from "./interval.js";
export { createRng, type Rng } from "./rng.js";
