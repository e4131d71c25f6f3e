import { readFileSync } from "node:fs";

/** The package version (src/engine and dist/engine are both two levels below package.json). */
export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;
