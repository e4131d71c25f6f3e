import { absent } from "./absent.js";
import { contains } from "./contains.js";
import { defineGrader, type Grader } from "./define.js";
import { equals } from "./equals.js";
import { json } from "./json.js";
import { judge } from "./judge.js";
import { command, script } from "./process.js";
import { regex } from "./regex.js";
import type { GraderDefinition } from "./types.js";

/** Grader types by name. Adding a built-in grader is one entry here. */
const graders = new Map<string, Grader>(
  Object.entries({ equals, contains, absent, regex, json, judge, script, command }),
);

/** Adds a grader type for case files loaded afterwards. */
export function registerGrader<S>(type: string, def: GraderDefinition<S>): void {
  if (!/^[A-Za-z_][\w-]*$/.test(type)) throw new Error(`invalid grader type name "${type}"`);
  if (graders.has(type)) throw new Error(`grader type "${type}" is already registered`);
  graders.set(type, defineGrader(def));
}

export function getGrader(type: string): Grader | undefined {
  return graders.get(type);
}

export function knownGraderTypes(): string[] {
  return [...graders.keys()];
}
