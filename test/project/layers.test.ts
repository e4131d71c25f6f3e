import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");

/**
 * The folders of src/ from the top down (DESIGN.md's layers): a file may import from its own
 * folder and from the folders below its own, never from a folder beside or above it. Folders
 * on one line are side by side. A new folder must be placed here before it can be imported.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"],
  ["index.ts"],
  ["schemas"],
  ["pairwise", "skills"],
  ["cases", "checks"],
  ["run"],
  ["config"],
  ["graders"],
  ["model"],
  ["agents"],
  ["judge"],
  ["process"],
  ["secrets"],
  ["render"],
  ["report"],
  ["stats"],
  ["errors.ts", "version.ts"],
];

/** A source file's imports: relative specifiers (type-only too) and node: built-ins. */
function imports(): Map<string, { relative: string[]; builtins: string[] }> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
  const specifier = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/g;
  const graph = new Map<string, { relative: string[]; builtins: string[] }>();
  for (const file of files) {
    const found = [...readFileSync(path.join(SRC, file), "utf8").matchAll(specifier)].map(
      (match) => match[1]!,
    );
    graph.set(file, {
      relative: found
        .filter((s) => s.startsWith("."))
        .map((s) => path.relative(SRC, path.resolve(SRC, path.dirname(file), s))),
      builtins: found.filter((s) => s.startsWith("node:")),
    });
  }
  return graph;
}

function folderOf(file: string): string {
  const parts = file.split(path.sep);
  return parts.length === 1 ? parts[0]!.replace(/\.js$/, ".ts") : parts[0]!;
}

function layerOf(folder: string): number {
  const layer = LAYERS.findIndex((names) => names.includes(folder));
  if (layer < 0) throw new Error(`src/${folder} has no layer in LAYERS`);
  return layer;
}

describe("src/ layers", () => {
  it("every import goes down a layer or stays in its folder", () => {
    const wrong = [...imports()].flatMap(([file, { relative }]) =>
      relative
        .filter((target) => {
          const [from, to] = [folderOf(file), folderOf(target)];
          return from !== to && layerOf(to) <= layerOf(from);
        })
        .map((target) => `${file} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it("the engine knows no format: src/run imports no renderer", () => {
    const wrong = [...imports()].flatMap(([file, { relative }]) =>
      folderOf(file) === "run"
        ? relative.filter((t) => folderOf(t) === "render").map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(wrong).toEqual([]);
  });

  it("renderers read nothing: no fs, no rows reader", () => {
    // The one exception reads the page's own compiled script, once: never a run's file.
    const ownScript = path.join("render", "html", "client-script.ts");
    const readers = ["read-rows", "parse-row", "row-lines", "read-document"].map((name) =>
      path.join("report", `${name}.js`),
    );
    const wrong = [...imports()].flatMap(([file, { relative, builtins }]) =>
      folderOf(file) === "render" && file !== ownScript
        ? [
            ...builtins.filter((b) => b.startsWith("node:fs")),
            ...relative.filter((t) => readers.includes(t)),
          ].map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(wrong).toEqual([]);
  });

  it("can fail: an import up a layer is caught", () => {
    expect(layerOf("report")).toBeGreaterThan(layerOf("run"));
    expect(() => layerOf("nowhere")).toThrow(/no layer/);
  });
});
