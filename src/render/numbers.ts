/** How every renderer writes a number; apart, so the page's script takes them without the rest. */

export function fixed(value: number | null, digits = 3): string {
  return value === null ? "n/a" : value.toFixed(digits);
}

export function percent(value: number): string {
  return `${Math.round(value * 1000) / 10}%`;
}

/** `95%`, `97.5%`: an interval's level. */
export function levelPercent(level: number): string {
  return `${Number((level * 100).toFixed(2))}%`;
}

/** `4/5`: samples passed of those run; the score itself for fractional scores (the article's). */
export function passedOf(score: number, samples: number): string {
  const passed = score * samples;
  const whole = Math.round(passed);
  return Math.abs(passed - whole) < 1e-9 ? `${whole}/${samples}` : fixed(score, 2);
}

export function dollars(value: number | null): string {
  return value === null ? "unknown" : `$${value.toFixed(4)}`;
}

export function milliseconds(value: number | null): string {
  return value === null ? "-" : `${Math.round(value)} ms`;
}
