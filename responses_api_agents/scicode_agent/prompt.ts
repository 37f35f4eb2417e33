// The per-sub-step prompt: a NeMo Gym prompt config (YAML `{user, system?}`) whose `user` template the agent fills
// with `{problem_steps_str}`, `{next_step_str}` and `{dependencies}` (str.format; `{{`/`}}` are literal braces).
// It is read when the config is checked, so a missing file or a template naming another field fails the start
// (and `gym env validate`) naming the key, not every rollout.
import { statSync } from "node:fs";
import { z } from "zod";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { fillTemplate, loadPromptConfig } from "../../src/rollouts/prompt-config.ts";

export const PROMPT_FIELDS = ["problem_steps_str", "next_step_str", "dependencies"] as const;
export type PromptFields = Record<(typeof PROMPT_FIELDS)[number], string>;

export interface StepPrompt {
  /** Where it was read from (the resolved path). */
  path: string;
  /** NeMo Gym's scicode_agent sends the user message only; a `system` entry is not used. */
  user: string;
}

/** The `{name}` fields a str.format template references (`{{` and `}}` are literal braces, not fields). */
function templateFields(template: string): string[] {
  return [...template.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)].filter((match) => match[1] !== undefined).map((match) => match[1]!);
}

const NO_NEMO_PROMPT =
  "this project does not ship NeMo Gym's SciCode prompt (benchmarks/scicode/prompts/*.yaml); put that file there, or set prompt_fpath to a prompt of your own " +
  "(a YAML `user:` template with {problem_steps_str}, {next_step_str}, {dependencies}; e.g. responses_api_agents/scicode_agent/data/example_prompt.yaml)";

/** `prompt_fpath` as the config schema checks it: resolved under the Gym roots (as NeMo Gym resolves it), read and checked. */
export const PromptPathSchema = z.string().transform((fpath, ctx): StepPrompt => {
  const { path, found } = resolveUnderRoots(fpath, searchRoots(), (candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile() ?? false);
  if (!found) {
    ctx.addIssue({ code: "custom", message: `the prompt file ${fpath} is not here (looked for ${path}); ${NO_NEMO_PROMPT}` });
    return z.NEVER;
  }
  let user: string;
  try {
    user = loadPromptConfig(path).user;
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
  const unknown = templateFields(user).filter((field) => !(PROMPT_FIELDS as readonly string[]).includes(field));
  if (unknown.length > 0) {
    ctx.addIssue({ code: "custom", message: `the prompt ${path} references ${unknown.map((f) => `{${f}}`).join(", ")}; the agent fills only ${PROMPT_FIELDS.map((f) => `{${f}}`).join(", ")}` });
    return z.NEVER;
  }
  return { path, user };
});

export const fillStepPrompt = (prompt: StepPrompt, fields: PromptFields) => fillTemplate(prompt.user, fields);
