// Writes schemas/<name>.schema.json from the built package (npm run schemas builds it first),
// so the shipped files are exactly what `eb schema <name>` prints.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jsonSchemaText } from "../dist/schemas/index.js";
import { SCHEMA_NAMES, schemaFile } from "../dist/schemas/names.js";

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "schemas");
await mkdir(dir, { recursive: true });
for (const name of SCHEMA_NAMES) {
  await writeFile(path.join(dir, schemaFile(name)), jsonSchemaText(name));
}
console.log(`Wrote ${SCHEMA_NAMES.map(schemaFile).join(", ")} to ${dir}`);
