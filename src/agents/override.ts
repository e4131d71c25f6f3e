import { z } from "zod";

export const stringList = z.array(z.string(), "must be a list of strings");
export const stringTable = z.record(z.string(), z.string(), "must be a table of string values");
/** An empty string clears a value inherited from a built-in agent template. */
const clearable = z.string("must be a string").transform((value) => (value === "" ? null : value));

/** An `[agents.<name>]` table: a new agent template, or changes to a built-in one. */
export const agentOverrideSchema = z.strictObject({
  command: stringList.min(1, "must name the program").optional(),
  shared_flags: stringList.optional(),
  prompt_flag: clearable.optional(),
  prompt_position: z
    .enum(["tail", "after_command", "stdin"], "must be 'tail', 'after_command' or 'stdin'")
    .optional(),
  model_flag: clearable.optional(),
  model_env_vars: stringList.optional(),
  default_model: clearable.optional(),
  reasoning_effort: clearable.optional(),
  reasoning_effort_flag: stringList.optional(),
  provider_env: stringTable.optional(),
});
export type AgentOverride = z.output<typeof agentOverrideSchema>;
