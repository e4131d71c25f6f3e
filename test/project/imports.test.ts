import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");

/** Every relative import of every source file, type-only ones included unless `run` says. */
function importGraph(run = false): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(SRC, file));
  const graph = new Map<string, string[]>();
  const specifier = run
    ? /(?:^|\n)\s*(?:import|export)\b(?!\s+type\b)[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g
    : /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g;
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(specifier)].map((match) =>
      path.resolve(path.dirname(file), match[1]!.replace(/\.js$/, ".ts")),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** The import cycles, each as the files on it (relative to src/). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") {
        found.push(stack.slice(stack.indexOf(next)).map((f) => path.relative(SRC, f)));
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("src/ imports", () => {
  it("resolve to files that exist", () => {
    const graph = importGraph();
    const missing = [...graph.values()].flat().filter((target) => !graph.has(target));
    expect(missing).toEqual([]);
  });

  it("form no cycle, type-only imports included", () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it("the HTML page is rendered from documents alone: no rows reader, and fs only for its script", () => {
    // What runs: a type-only import loads nothing.
    const graph = importGraph(true);
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) visit(next);
    };
    visit(path.join(SRC, "render/html/page.ts"));
    const relative = [...reached].map((file) => path.relative(SRC, file)).sort();
    expect(relative).toContain("render/html/page-data.ts");
    expect(relative.filter((file) => /read-rows|read-document|cases\/load/.test(file))).toEqual([]);
    const usesFs = relative.filter((file) =>
      /from "node:fs(?:\/promises)?"/.test(readFileSync(path.join(SRC, file), "utf8")),
    );
    expect(usesFs).toEqual(["render/html/client-script.ts"]);
  });

  it("the run lifecycle knows no front door: src/run imports nothing from checks/ or cases/", () => {
    const graph = importGraph();
    const folder = (file: string) => path.relative(SRC, file).split(path.sep)[0];
    const upward = [...graph]
      .filter(([file]) => folder(file) === "run")
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => ["checks", "cases", "cli"].includes(folder(t) ?? ""))
          .map((t) => `${path.relative(SRC, file)} -> ${path.relative(SRC, t)}`),
      );
    expect(upward).toEqual([]);
  });
});
