/**
 * The beta distribution's CDF and quantile, for exact (Clopper–Pearson) binomial bounds.
 * After Numerical Recipes (3rd ed., §6.1, §6.4): Lanczos log-gamma, the incomplete beta by its
 * continued fraction (modified Lentz), the quantile by Halley steps from a close first guess.
 */

const LANCZOS = [
  57.15623566586292, -59.59796035547549, 14.136097974741746, -0.4919138160976202,
  3.399464998481189e-5, 4.652362892704858e-5, -9.837447530487956e-5, 0.0001580887032249125,
  -0.00021026444172410488, 0.00021743961811521265, -0.0001643181065367639, 8.441822398385275e-5,
  -2.6190838401581408e-5, 3.6899182659531625e-6,
];

/** log Γ(x) for x > 0; relative error below 1e-15. */
export function logGamma(x: number): number {
  let y = x;
  const shifted = x + 5.2421875;
  const head = (x + 0.5) * Math.log(shifted) - shifted;
  let series = 0.9999999999999971;
  for (const c of LANCZOS) series += c / ++y;
  return head + Math.log((2.5066282746310007 * series) / x);
}

const TINY = 1e-300;
const CF_EPS = 1e-15;
const CF_MAX_TERMS = 100_000;

function lentzStep(value: number): number {
  return Math.abs(value) < TINY ? TINY : value;
}

/** The incomplete beta's continued fraction; converges fast for x < (a + 1) / (a + b + 2). */
function betaFraction(a: number, b: number, x: number): number {
  let c = 1;
  let d = 1 / lentzStep(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m <= CF_MAX_TERMS; m++) {
    const m2 = 2 * m;
    const even = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2));
    d = 1 / lentzStep(1 + even * d);
    c = lentzStep(1 + even / c);
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2));
    d = 1 / lentzStep(1 + odd * d);
    c = lentzStep(1 + odd / c);
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < CF_EPS) break;
  }
  return h;
}

/** I_x(a, b): P(X ≤ x) for X ~ Beta(a, b), a, b > 0. */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x),
  );
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(a, b, x)) / a;
  return 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** First guess of the quantile (Numerical Recipes' invbetai), within a few digits. */
function firstGuess(p: number, a: number, b: number): number {
  if (a >= 1 && b >= 1) {
    const tail = p < 0.5 ? p : 1 - p;
    const t = Math.sqrt(-2 * Math.log(tail));
    let x = (2.30753 + t * 0.27061) / (1 + t * (0.99229 + t * 0.04481)) - t;
    if (p < 0.5) x = -x;
    const al = (x * x - 3) / 6;
    const h = 2 / (1 / (2 * a - 1) + 1 / (2 * b - 1));
    const w =
      (x * Math.sqrt(al + h)) / h -
      (1 / (2 * b - 1) - 1 / (2 * a - 1)) * (al + 5 / 6 - 2 / (3 * h));
    return a / (a + b * Math.exp(2 * w));
  }
  const t = Math.exp(a * Math.log(a / (a + b))) / a;
  const u = Math.exp(b * Math.log(b / (a + b))) / b;
  const w = t + u;
  return p < t / w ? (a * w * p) ** (1 / a) : 1 - (b * w * (1 - p)) ** (1 / b);
}

const QUANTILE_EPS = 1e-10;
const HALLEY_STEPS = 40;

/** x with I_x(a, b) = p, for a, b > 0 (not necessarily whole numbers). */
export function betaQuantile(p: number, a: number, b: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const logNorm = logGamma(a + b) - logGamma(a) - logGamma(b);
  let x = firstGuess(p, a, b);
  for (let step = 0; step < HALLEY_STEPS; step++) {
    if (x <= 0 || x >= 1) break;
    const error = betaCdf(x, a, b) - p;
    const density = Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) + logNorm);
    const u = error / density;
    const move = u / (1 - 0.5 * Math.min(1, u * ((a - 1) / x - (b - 1) / (1 - x))));
    const next = x - move;
    x = next <= 0 ? 0.5 * x : next >= 1 ? 0.5 * (x + 1) : next;
    if (Math.abs(move) < QUANTILE_EPS * x) break;
  }
  return x;
}
