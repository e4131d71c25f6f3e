import { createHash } from "node:crypto";
import { unicodeEscape } from "../../report/terminal.js";
import { clientScript } from "./client-script.js";
import { escapeHtml } from "./escape-html.js";
import type { Page } from "./model.js";
import { pageData } from "./page-data.js";
import { STYLE } from "./style.js";
import { visible } from "./visible.js";

/**
 * The one HTML page of every view (a run, a compare, a pairwise run, a leaderboard, a merged
 * run): one file, no request of any kind, built from the documents alone. The data sits in a
 * JSON script (never run, never parsed as HTML: `<`, `>`, `&`, the line separators and every
 * invisible control are \u escapes), and the CSP allows only this page's own script and style,
 * by hash: an injected `<script>` or inline handler would not run even if some text ever reached
 * the DOM as markup. Hashes rather than 'unsafe-inline' because both blocks are fixed at build
 * time, so hashing them costs nothing.
 */
export function htmlPage(page: Page): string {
  const data = pageData(page);
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
<title>${escapeHtml(visible(data.title))}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<noscript>This page needs JavaScript to show its data; report.md and report.json in the run folder hold the same figures.</noscript>
<div id="app"></div>
<script type="application/json" id="eb-data">${jsonForScript(data)}</script>
<script>${script}</script>
</body>
</html>
`;
}

/**
 * JSON that no HTML parser can end early (`</script>`, `<!--` and `&` become \u escapes) and
 * that holds no raw bidi or other invisible control: each is the same character once parsed.
 */
export function jsonForScript(value: unknown): string {
  return visible(JSON.stringify(value)).replace(/[<>&]/g, unicodeEscape);
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}
