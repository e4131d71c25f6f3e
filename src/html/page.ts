import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { escapeHtml } from "../report/escape-html.js";
import type { PageModel } from "./model.js";
import { STYLE } from "./style.js";

/**
 * The page's script, compiled from client/ by the build (rolldown.config.mjs) to dist/html/.
 * The same relative URL reaches it from the library (dist/html/page.js) and from the bundled
 * CLI (dist/bin/*.js); run from source (the tests), this file finds the build's copy. It is read
 * once, when the first page is built.
 */
const CLIENT_URLS = [
  new URL("../html/client.js", import.meta.url),
  new URL("../../dist/html/client.js", import.meta.url),
];

let client: string | null = null;

function clientScript(): string {
  client ??= readFileSync(
    fileURLToPath(CLIENT_URLS.find((url) => existsSync(url)) ?? CLIENT_URLS[0]!),
    "utf8",
  );
  return client;
}

/**
 * The whole page: one file, no request of any kind. The data sits in a JSON script (never run,
 * never parsed as HTML: `<`, `>`, `&` and the JS line separators are escaped), and the CSP
 * allows only this page's own script and style, by hash: an injected `<script>` or inline
 * handler would not run even if some text ever reached the DOM as markup. Hashes rather than
 * 'unsafe-inline' because both blocks are fixed at build time, so hashing them costs nothing.
 */
export function renderPage(model: PageModel): string {
  const script = clientScript();
  const csp = [
    "default-src 'none'",
    `script-src '${sha256(script)}'`,
    `style-src '${sha256(STYLE)}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(model.title)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<noscript>This report needs JavaScript to show its data; report.md and report.json in the run folder hold the same figures.</noscript>
<div id="app"></div>
<script type="application/json" id="eb-data">${jsonForScript(model)}</script>
<script>${script}</script>
</body>
</html>
`;
}

/** JSON that no HTML parser can end early: `</script>`, `<!--` and `&` become \\u escapes. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}
