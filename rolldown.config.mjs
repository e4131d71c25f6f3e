// The `eb` CLI as a few files instead of ~400 modules: Node 20 spends ~90 ms resolving and
// compiling them one by one at every start. The library (dist/index.js) stays as tsc emits it.
import { chmod } from "node:fs/promises";
import path from "node:path";
import { defineConfig } from "rolldown";

const OUT_DIR = "dist/bin";

export default defineConfig([
  {
    input: { eb: "dist/cli/main.js" },
    platform: "node",
    logLevel: "warn",
    // Dependencies bundled too: their module graphs are most of the start-up cost.
    output: { dir: OUT_DIR, format: "esm", chunkFileNames: "[name]-[hash].js", cleanDir: true },
    plugins: [
      {
        // The bundle is written anew on every build, so `npx eb` (a bin link to it) needs its
        // executable bit back each time.
        name: "executable-bin",
        async writeBundle() {
          await chmod(path.join(OUT_DIR, "eb.js"), 0o755);
        },
      },
    ],
  },
  {
    // The HTML page's script, from TypeScript (type-checked by tsconfig.client.json): one file,
    // read by src/render/html/client-script.ts when a page is built, and inlined there.
    input: "src/render/html/client/main.ts",
    platform: "browser",
    logLevel: "warn",
    output: { file: "dist/html/client.js", format: "iife", minify: true },
  },
]);
