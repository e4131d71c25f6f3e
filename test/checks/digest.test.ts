import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkDefinitionSha256, computeCheckDefinitionSha256 } from "../../src/checks/digest.js";
import { parseCheck } from "../../src/checks/parse.js";
import { InputError } from "../../src/errors.js";
import { makeProject, runEb, writeFile } from "../helpers/project.js";

interface Vector {
  name: string;
  yaml_hex: string;
  yaml_byte_length: number;
  script_state: "none" | "readable" | "unavailable";
  script_relpath_from_yaml_dir?: string;
  script_hex?: string;
  components: string[];
  framed_input_hex: string;
  check_definition_sha256: string;
}

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const VECTORS_PATH = path.resolve(REPO_ROOT, "test/fixtures/vectors/check-definition-sha256.json");
const VECTORS = (JSON.parse(readFileSync(VECTORS_PATH, "utf8")) as { vectors: Vector[] }).vectors;

function vector(name: string): Vector {
  const found = VECTORS.find((v) => v.name === name);
  if (!found) throw new Error(`no vector ${name}`);
  return found;
}

/** Writes the vector's YAML (and script when readable) under `<proj>/eval_checks/`. */
function writeVector(v: Vector): { root: string; yamlPath: string } {
  const root = realpathSync(makeProject());
  const yamlPath = writeFile(root, "eval_checks/check.yaml", Buffer.from(v.yaml_hex, "hex"));
  if (v.script_state === "readable") {
    writeFile(
      root,
      path.join("eval_checks", v.script_relpath_from_yaml_dir ?? ""),
      Buffer.from(v.script_hex ?? "", "hex"),
    );
  }
  return { root, yamlPath };
}

function isValidCheck(bytes: Uint8Array): boolean {
  try {
    parseCheck("/vector.yaml", bytes);
    return true;
  } catch {
    return false;
  }
}

describe("test vectors", () => {
  it("has the 8 vectors", () => {
    expect(VECTORS.map((v) => v.name)).toEqual([
      "inline_script_deterministic",
      "script_path_readable",
      "script_path_missing",
      "unicode_yaml_harness_judge",
      "minimal_harness_judge_no_trailing_newline",
      "script_path_readable_but_empty_file",
      "framing_only_empty_yaml_bytes",
      "crlf_yaml_is_not_normalised",
    ]);
  });

  it.each(VECTORS.map((v) => [v.name, v] as const))("%s: framing recomputes", (_name, v) => {
    const framed = Buffer.from(v.framed_input_hex, "hex");
    const digest = `sha256:${createHash("sha256").update(framed).digest("hex")}`;
    expect(digest).toBe(v.check_definition_sha256);
    const yaml = Buffer.from(v.yaml_hex, "hex");
    expect(yaml.length).toBe(v.yaml_byte_length);
    // Domain (38 bytes + NUL), then u64be(15) "definition.yaml" u64be(len) yaml.
    const prefix = Buffer.concat([
      Buffer.from("eval-banana/check-definition-sha256/v1\0", "ascii"),
      u64be(15),
      Buffer.from("definition.yaml", "ascii"),
      u64be(yaml.length),
      yaml,
    ]);
    expect(framed.subarray(0, prefix.length).equals(prefix)).toBe(true);
  });

  it.each(VECTORS.map((v) => [v.name, v] as const))(
    "%s: checkDefinitionSha256 of the bytes matches",
    (_name, v) => {
      const yaml = Buffer.from(v.yaml_hex, "hex");
      const script =
        v.script_state === "readable"
          ? {
              state: "readable" as const,
              resolvedPath: "/s.py",
              bytes: Buffer.from(v.script_hex ?? "", "hex"),
            }
          : v.script_state === "unavailable"
            ? { state: "unavailable" as const, resolvedPath: "/s.py", reason: "missing" }
            : null;
      expect(checkDefinitionSha256(yaml, script)).toBe(v.check_definition_sha256);
    },
  );

  it.each(VECTORS.map((v) => [v.name, v] as const))(
    "%s: computeCheckDefinitionSha256 from files matches (or throws InputError when invalid)",
    async (_name, v) => {
      const { yamlPath } = writeVector(v);
      const bytes = Buffer.from(v.yaml_hex, "hex");
      if (isValidCheck(bytes)) {
        expect(await computeCheckDefinitionSha256(yamlPath)).toBe(v.check_definition_sha256);
      } else {
        expect(v.name).toBe("framing_only_empty_yaml_bytes");
        expect(checkDefinitionSha256(bytes, null)).toBe(v.check_definition_sha256);
        await expect(computeCheckDefinitionSha256(yamlPath)).rejects.toBeInstanceOf(InputError);
      }
    },
  );
});

describe("computeCheckDefinitionSha256", () => {
  it("throws the file-system error when the YAML cannot be read", async () => {
    const root = realpathSync(makeProject());
    const missing = path.join(root, "eval_checks", "nope.yaml");
    await expect(computeCheckDefinitionSha256(missing)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(computeCheckDefinitionSha256(missing)).rejects.not.toBeInstanceOf(InputError);
  });

  it("resolves a symlinked script (file link) to its bytes", async () => {
    const v = vector("script_path_readable");
    const root = realpathSync(makeProject());
    const yamlPath = writeFile(root, "eval_checks/check.yaml", Buffer.from(v.yaml_hex, "hex"));
    writeFile(root, "elsewhere/real.py", Buffer.from(v.script_hex ?? "", "hex"));
    mkdirSync(path.join(root, "eval_checks", "scripts"));
    symlinkSync(
      path.join(root, "elsewhere", "real.py"),
      path.join(root, "eval_checks", "scripts", "check.py"),
    );
    expect(await computeCheckDefinitionSha256(yamlPath)).toBe(v.check_definition_sha256);
  });

  it("resolves a script through a symlinked folder", async () => {
    const v = vector("script_path_readable");
    const root = realpathSync(makeProject());
    const yamlPath = writeFile(root, "eval_checks/check.yaml", Buffer.from(v.yaml_hex, "hex"));
    writeFile(root, "real_scripts/check.py", Buffer.from(v.script_hex ?? "", "hex"));
    symlinkSync(path.join(root, "real_scripts"), path.join(root, "eval_checks", "scripts"));
    expect(await computeCheckDefinitionSha256(yamlPath)).toBe(v.check_definition_sha256);
  });

  it("a dangling script symlink or a folder counts as unavailable", async () => {
    const v = vector("script_path_readable");
    const root = realpathSync(makeProject());
    const yamlPath = writeFile(root, "eval_checks/check.yaml", Buffer.from(v.yaml_hex, "hex"));
    mkdirSync(path.join(root, "eval_checks", "scripts"));
    symlinkSync(path.join(root, "gone.py"), path.join(root, "eval_checks", "scripts", "check.py"));
    const unavailable = checkDefinitionSha256(Buffer.from(v.yaml_hex, "hex"), {
      state: "unavailable",
      resolvedPath: "",
      reason: "",
    });
    expect(await computeCheckDefinitionSha256(yamlPath)).toBe(unavailable);

    const other = realpathSync(makeProject());
    const otherYaml = writeFile(other, "eval_checks/check.yaml", Buffer.from(v.yaml_hex, "hex"));
    mkdirSync(path.join(other, "eval_checks", "scripts", "check.py"), { recursive: true });
    expect(await computeCheckDefinitionSha256(otherYaml)).toBe(unavailable);
  });

  it("a script_path relative to the YAML's folder, not the cwd", async () => {
    const v = vector("script_path_readable");
    const root = realpathSync(makeProject());
    const yamlPath = writeFile(root, "a/b/eval_checks/check.yaml", Buffer.from(v.yaml_hex, "hex"));
    writeFile(root, "a/b/eval_checks/scripts/check.py", Buffer.from(v.script_hex ?? "", "hex"));
    writeFile(root, "eval_checks/scripts/check.py", "different");
    expect(await computeCheckDefinitionSha256(yamlPath)).toBe(v.check_definition_sha256);
  });

  it("an absolute script_path works", async () => {
    const v = vector("script_path_readable");
    const root = realpathSync(makeProject());
    const scriptBytes = Buffer.from(v.script_hex ?? "", "hex");
    const scriptPath = writeFile(root, "abs/check.py", scriptBytes);
    const yaml = Buffer.from(
      `schema_version: 1\nid: abs\ntype: deterministic\ndescription: d\nscript_path: ${scriptPath}\n`,
    );
    const yamlPath = writeFile(root, "eval_checks/check.yaml", yaml);
    const expected = checkDefinitionSha256(yaml, {
      state: "readable",
      resolvedPath: scriptPath,
      bytes: scriptBytes,
    });
    expect(await computeCheckDefinitionSha256(yamlPath)).toBe(expected);
  });
});

describe("end to end through eb run", () => {
  it.each([
    ["inline_script_deterministic"],
    ["script_path_readable"],
    ["script_path_missing"],
    ["script_path_readable_but_empty_file"],
  ])("%s: report.json carries the vector digest", async (name) => {
    const v = vector(name);
    const { root } = writeVector(v);
    const result = await runEb(["run", "--cwd", root]);
    const resultsDir = path.join(root, ".eval-banana", "results");
    const runs = readdirSync(resultsDir);
    expect(runs).toHaveLength(1);
    const report = JSON.parse(
      readFileSync(path.join(resultsDir, runs[0] ?? "", "report.json"), "utf8"),
    ) as {
      checks: { check_definition_sha256: string; status: string; error_detail: string | null }[];
    };
    expect(report.checks).toHaveLength(1);
    const check = report.checks[0];
    expect(check?.check_definition_sha256).toBe(v.check_definition_sha256);
    if (name === "script_path_missing") {
      expect(check?.status).toBe("error");
      expect(check?.error_detail).toContain(path.join(root, "eval_checks", "missing.py"));
      expect(result.code).toBe(1);
    }
    if (name === "script_path_readable" || name === "script_path_readable_but_empty_file") {
      expect(check?.status).toBe("passed");
      expect(result.code).toBe(0);
    }
  });
});

function u64be(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(value));
  return buffer;
}
