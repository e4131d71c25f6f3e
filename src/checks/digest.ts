import { createHash } from "node:crypto";
import { readCheckFile } from "./load.js";
import { parseCheck } from "./parse.js";
import { readScriptSnapshot, type ScriptSnapshot } from "./script.js";

const DOMAIN = Buffer.from("eval-banana/check-definition-sha256/v1\0", "ascii");

/**
 * The seed's canonical digest: the domain, then length-framed components
 * (`u64be(len) name u64be(len) content`): the exact YAML bytes, and for a `script_path` check
 * the frozen script bytes, or an empty `referenced-script-unavailable` component.
 */
export function checkDefinitionSha256(
  yamlBytes: Uint8Array,
  script: ScriptSnapshot | null,
): string {
  const parts: Uint8Array[] = [DOMAIN, ...component("definition.yaml", yamlBytes)];
  if (script?.state === "readable") parts.push(...component("referenced-script", script.bytes));
  if (script?.state === "unavailable") {
    parts.push(...component("referenced-script-unavailable", new Uint8Array()));
  }
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return `sha256:${hash.digest("hex")}`;
}

function component(name: string, content: Uint8Array): Uint8Array[] {
  const nameBytes = Buffer.from(name, "ascii");
  return [u64be(nameBytes.length), nameBytes, u64be(content.length), content];
}

function u64be(value: number): Uint8Array {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(value));
  return buffer;
}

/**
 * Public API: the digest of the check defined at `sourcePath`, read once, with the same script
 * snapshot rules as the runner. Throws the file-system error when the YAML cannot be read and an
 * InputError when its bytes are not a valid check definition; a missing referenced script is not
 * an error here (it yields the "unavailable" digest).
 */
export async function computeCheckDefinitionSha256(sourcePath: string): Promise<string> {
  const bytes = readCheckFile(sourcePath);
  const check = parseCheck(sourcePath, bytes);
  const script = check.type === "deterministic" ? readScriptSnapshot(check) : null;
  return checkDefinitionSha256(bytes, script);
}
