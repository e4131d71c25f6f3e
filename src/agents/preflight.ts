import { access, constants, stat } from "node:fs/promises";
import path from "node:path";
import type { AgentOverride } from "./override.js";
import { resolveTemplate } from "./resolve.js";

/**
 * Whether an agent's program is there to run: null when it is, else what to tell the user.
 * An agent that is neither built in nor defined throws the InputError of resolveTemplate.
 */
export async function missingAgentProgram(
  agent: string,
  overrides: Readonly<Record<string, AgentOverride>>,
  env: NodeJS.ProcessEnv,
  projectRoot: string,
): Promise<string | null> {
  const template = resolveTemplate(agent, overrides);
  const program = template.command[0]!;
  if (await isExecutable(program, env.PATH, projectRoot)) return null;
  const install = template.install ? ` Install it with: ${template.install}.` : "";
  return (
    `Harness agent '${agent}' runs '${program}', which was not found on PATH.${install} ` +
    "See docs/harness.md of eval-banana (Built-in agents)."
  );
}

/**
 * True when `program` can be executed, found as spawn finds it: a name with a slash is a path
 * from `cwd`, any other name is looked up on `envPath`; a folder does not count.
 */
export async function isExecutable(
  program: string,
  envPath: string | undefined,
  cwd: string,
): Promise<boolean> {
  const candidates = program.includes(path.sep)
    ? [path.resolve(cwd, program)]
    : (envPath ?? "")
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, program));
  for (const candidate of candidates) if (await isExecutableFile(candidate)) return true;
  return false;
}

async function isExecutableFile(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return false;
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}
