import { EXIT } from "../errors.js";
import { jsonSchemaText } from "../schemas/index.js";
import type { SchemaName } from "../schemas/names.js";

/** Prints the JSON Schema of one of eval-banana's files (the name is checked by commander). */
export async function schemaCommand(name: SchemaName): Promise<number> {
  process.stdout.write(jsonSchemaText(name));
  return EXIT.passed;
}
