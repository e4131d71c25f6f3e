import { z } from "zod";
import { defineGrader, quote } from "./define.js";

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === "string";
/**
 * After JSON.parse, `3` and `3.0` are the same number, so unlike Python's
 * `type(x).__name__ == "int"` an integer-valued `3.0` counts as int.
 */
const isInteger: Check = (v) => typeof v === "number" && Number.isInteger(v);
/** Any number satisfies float, `3` included (Python would call 3 an int and fail it). */
const isNumber: Check = (v) => typeof v === "number";
const isBoolean: Check = (v) => typeof v === "boolean";
const isArray: Check = (v) => Array.isArray(v);
const isObject: Check = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const isNull: Check = (v) => v === null;

/** The article's Python type names and their JSON Schema equivalents. */
const TYPES: Record<string, Check> = {
  str: isString,
  string: isString,
  int: isInteger,
  integer: isInteger,
  float: isNumber,
  number: isNumber,
  bool: isBoolean,
  boolean: isBoolean,
  list: isArray,
  array: isArray,
  dict: isObject,
  object: isObject,
  null: isNull,
  NoneType: isNull,
};

/** "", null and "any" only require the field to be present (the article's `if want`). */
const ANY_TYPE = ["any", ""] as const;
const fieldType = z.enum([...Object.keys(TYPES), ...ANY_TYPE]).nullable();

/** The first ```json (or bare ```) fenced block, else the whole text, parses to an object. */
export const json = defineGrader({
  describe: `{"fields": {"<name>": "${Object.keys(TYPES).join("|")}|any"}} (fields optional)`,
  schema: z.strictObject({ fields: z.record(z.string(), fieldType).optional() }),
  grade(output, spec) {
    const doc = parseObject(fenced(output));
    if (typeof doc === "string") return { pass: false, reason: `${doc}; got ${quote(output)}` };
    for (const [field, want] of Object.entries(spec.fields ?? {})) {
      if (!Object.hasOwn(doc, field)) return { pass: false, reason: `field "${field}" is missing` };
      const check = want ? TYPES[want] : undefined;
      if (check && !check(doc[field])) {
        return { pass: false, reason: `field "${field}" is ${typeName(doc[field])}, not ${want}` };
      }
    }
    return true;
  },
});

function fenced(text: string): string {
  const match = /```(?:json)?\s*([\s\S]+?)```/i.exec(text);
  return (match?.[1] ?? text).trim();
}

/** The parsed object, or why there is none. */
function parseObject(text: string): Record<string, unknown> | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (isObject(doc)) return doc as Record<string, unknown>;
  return `JSON is ${typeName(doc)}, not an object`;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a float";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
