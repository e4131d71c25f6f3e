// The `eb` CLI as a few files instead of ~400 modules: Node 20 spends ~90 ms resolving and
// compiling them one by one at every start. The library (dist/index.js) stays as tsc emits it.
import { defineConfig } from "rolldown";

export default defineConfig({
  input: { eb: "dist/cli/main.js" },
  platform: "node",
  logLevel: "warn",
  // Dependencies bundled too: their module graphs are most of the start-up cost.
  output: { dir: "dist/bin", format: "esm", chunkFileNames: "[name]-[hash].js", cleanDir: true },
});
