// The `eb` CLI as a few files instead of ~400 modules: Node 20 spends ~90 ms resolving and
// compiling them one by one at every start. The library (dist/index.js) stays as tsc emits it.
import { chmod } from "node:fs/promises";
import path from "node:path";
import { defineConfig } from "rolldown";

const OUT_DIR = "dist/bin";
const NO_H2 = "\0undici-client-h2";
/** start.ts and the modules it and program.ts import statically (keep in step with them). */
const ENTRY_IMPORTS =
  /dist[\\/](cli[\\/]start|cli[\\/]options|cli[\\/]output|cli[\\/]program|errors|run[\\/]provenance|schemas[\\/]names)\.js$/;

export default defineConfig([
  {
    input: { eb: "dist/cli/main.js" },
    platform: "node",
    logLevel: "warn",
    // The providers' own clients stay packages of their own, imported only by a run that calls
    // one (src/model/providers/): bundled, they would be most of the bundle and none of its use.
    external: [/^@anthropic-ai\/sdk(\/|$)/, /^@google\/genai(\/|$)/],
    // Dependencies bundled too: their module graphs are most of the start-up cost.
    output: {
      dir: OUT_DIR,
      format: "esm",
      chunkFileNames: "[name]-[hash].js",
      cleanDir: true,
      // Two chunks hold what `eb eval` loads before its first call, not twenty-odd: Node links
      // each chunk of a graph on its own (resolution, a module record, its imports), which cost
      // `eb eval` ~25 ms of CPU before its first call (197 -> 172 ms, median of 21). "startup"
      // is what every command loads (the parser and its tables: start.ts); "eval" the rest of the eval
      // command, each group with its modules' dependencies. Other commands import from both.
      codeSplitting: {
        groups: [
          // Apart, so that `eb --version` loads nothing else (src/cli/main.ts).
          { name: "version", test: /dist[\\/]version\.js$/, priority: 3 },
          { name: "startup", test: ENTRY_IMPORTS, priority: 2 },
          { name: "eval", test: /dist[\\/]cli[\\/]eval\.js$/, priority: 1 },
        ],
      },
    },
    plugins: [
      {
        // eb's undici pool speaks HTTP/1.1 only (allowH2 is off, so no connection negotiates h2),
        // and undici's HTTP/2 client loads node:http2 and node:tls as it is imported: ~20 ms of
        // CPU at the first call of every `eb eval`. Its stand-in fails the connection if called.
        name: "undici-without-h2",
        resolveId(source, importer) {
          const fromUndici = importer?.includes(`${path.sep}undici${path.sep}`) ?? false;
          return fromUndici && source === "./client-h2.js" ? NO_H2 : null;
        },
        load(id) {
          if (id !== NO_H2) return null;
          return 'module.exports = () => { throw new Error("eb does not speak HTTP/2"); };';
        },
      },
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
