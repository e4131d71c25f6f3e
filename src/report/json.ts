/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of a JSON text, or null when it is not JSON: for files eb reads but did not check. */
export function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A report (report.json, or the summary `--json` prints) as JSON text, indented as
 * JSON.stringify(value, null, 2) would but for its top-level arrays (items, checks, failing
 * items): a line for each entry. It reads, greps and diffs by item, and is half the size of JSON
 * indented through every item, quicker to write and read.
 */
export function documentJson(value: unknown): string {
  if (!isObject(value)) return `${JSON.stringify(value, null, 2)}\n`;
  const fields: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    const json = Array.isArray(field) && field.length > 0 ? entryLines(field) : nested(field);
    if (json !== undefined) fields.push(`  ${JSON.stringify(key)}: ${json}`);
  }
  return fields.length === 0 ? "{}\n" : `{\n${fields.join(",\n")}\n}\n`;
}

/** A field's value indented one level in, or undefined where JSON.stringify leaves it out. */
function nested(field: unknown): string | undefined {
  return JSON.stringify(field, null, 2)?.replaceAll("\n", "\n  ");
}

function entryLines(entries: readonly unknown[]): string {
  // Inside an array JSON.stringify writes what it cannot (undefined, a function) as null.
  const lines = entries.map((entry) => `    ${JSON.stringify(entry) ?? "null"}`);
  return `[\n${lines.join(",\n")}\n  ]`;
}

/**
 * `value` with `map` applied to every string in it, and to every key too with `keys`. Only what
 * changed is copied: the documents this runs over are large and nearly always come out the
 * same. Only what JSON.parse could have made is entered: a Date or a buffer is kept as it is.
 */
export function mapStrings<T>(value: T, map: (text: string) => string, keys = false): T {
  return mapped(value, map, keys) as T;
}

function mapped(value: unknown, map: (text: string) => string, keys: boolean): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const entry = mapped(value[i], map, keys);
      if (entry === value[i]) continue;
      copy ??= value.slice();
      copy[i] = entry;
    }
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  const record = value as Record<string, unknown>;
  const names = Object.keys(record);
  // Entries, not assignments: a "__proto__" key stays a key.
  let changed: [string, unknown][] | null = null;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const key = keys ? map(name) : name;
    const entry = mapped(record[name], map, keys);
    if (changed === null && key === name && entry === record[name]) continue;
    changed ??= names.slice(0, i).map((k): [string, unknown] => [k, record[k]]);
    changed.push([key, entry]);
  }
  return changed === null ? value : Object.fromEntries(changed);
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
