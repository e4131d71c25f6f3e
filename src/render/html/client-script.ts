import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The page's script, compiled from client/ by the build (rolldown.config.mjs) to dist/html/:
 * the one file a page's rendering reads. The first URL reaches it from the library
 * (dist/render/html/client-script.js), the second from the bundled CLI (dist/bin/*.js), the
 * third from source (the tests run this file as TypeScript). It is read once, when the first
 * page is built.
 */
const CLIENT_URLS = [
  new URL("../../html/client.js", import.meta.url),
  new URL("../html/client.js", import.meta.url),
  new URL("../../../dist/html/client.js", import.meta.url),
];

let client: string | null = null;

export function clientScript(): string {
  client ??= readFileSync(
    fileURLToPath(CLIENT_URLS.find((url) => existsSync(url)) ?? CLIENT_URLS[0]!),
    "utf8",
  );
  return client;
}
