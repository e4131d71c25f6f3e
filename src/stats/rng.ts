/**
 * Seeded pseudo-random numbers for the bootstrap and the simulations.
 *
 * xoshiro128** (Blackman & Vigna): 128-bit state, period 2^128 − 1, fast with 32-bit integer
 * arithmetic in JavaScript. A fixed seed (0 unless given) makes every interval reproducible:
 * the same rows always print the same numbers.
 */

export interface Rng {
  /** Next 32-bit unsigned integer. */
  uint32(): number;
  /** Uniform in the open interval (0, 1); never 0 or 1, so callers can take logs safely. */
  uniform(): number;
}

const TWO_POW_32 = 4294967296;

/** splitmix32: spreads similar seeds (0, 1, 2…) into unrelated xoshiro states. */
function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let t = next ^ (next >>> 16);
  t = Math.imul(t, 0x21f0aaad);
  t ^= t >>> 15;
  t = Math.imul(t, 0x735a2d97);
  t ^= t >>> 15;
  return [next, t >>> 0];
}

function seedState(seed: number): Uint32Array {
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  const whole = Math.trunc(seed);
  // Fold in the high bits too, so seeds above 2^32 do not collide with small ones.
  let mix = (whole >>> 0) ^ Math.imul(Math.floor(whole / TWO_POW_32) >>> 0, 0x85ebca6b);
  const state = new Uint32Array(4);
  for (let i = 0; i < 4; i++) {
    const [next, out] = splitmix32(mix);
    mix = next;
    state[i] = out;
  }
  // An all-zero state would be a fixed point; splitmix32 makes this practically impossible.
  if ((state[0]! | state[1]! | state[2]! | state[3]!) === 0) state[0] = 1;
  return state;
}

/** A new generator; the same seed always yields the same sequence. */
export function createRng(seed = 0): Rng {
  const s = seedState(seed);
  let s0 = s[0]!;
  let s1 = s[1]!;
  let s2 = s[2]!;
  let s3 = s[3]!;
  const uint32 = (): number => {
    const m = Math.imul(s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = (s3 << 11) | (s3 >>> 21);
    return result;
  };
  return { uint32, uniform: () => (uint32() + 0.5) / TWO_POW_32 };
}
