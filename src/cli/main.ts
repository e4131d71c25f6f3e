#!/usr/bin/env node
import { TOOL_VERSION } from "../version.js";

// `eb report … | head` closes the pipe early; that is not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

// `eb --version` alone answers before the CLI loads: its parser, option tables and schemas are
// ~60 ms of a start that is otherwise Node's own.
const [first, ...rest] = process.argv.slice(2);
if ((first === "--version" || first === "-V") && rest.length === 0) {
  process.stdout.write(`${TOOL_VERSION}\n`);
} else {
  const { main } = await import("./start.js");
  await main();
}
