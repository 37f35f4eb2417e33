// What NeMo Gym's proof servers (proof_judge, proof_verification) share: the \boxed{0|0.5|1} score their judges
// and policies write, the length limits of a proof and of an evaluation, their judge call (one user message through
// /v1/responses of judge_model_server, sampled by the instance's temperature / top_p / max_tokens), their prompt
// templates (NeMo Gym's YAML files, `user:` filled by str.format), and their opt-in JSONL log of every verify.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { askJudge, HttpError, pinnedNemoGymServerFile, readNemoGymServerFile, type JudgeCaller } from "../server/index.ts";
import { ValueError } from "../python/exception.ts";
import { pythonFloat } from "../python/numbers.ts";
import { pythonFormat } from "../python/str-format.ts";
import { pythonJsonDumpsTyped } from "../python/json-dumps.ts";
import { pythonLen } from "../python/str.ts";

export const MAX_PROOF_CHARS = 40_000;
export const MAX_VERIFICATION_CHARS = 20_000;

/** The score in the last `\boxed{…}` (up to the first `}`): 0, 0.5 or 1; null for anything else or none. */
export function extractBoxedScore(text: string): number | null {
  const start = text.lastIndexOf("\\boxed{");
  if (start === -1) return null;
  const contentStart = start + "\\boxed{".length;
  const end = text.indexOf("}", contentStart);
  if (end === -1) return null;
  let score: number;
  try {
    score = pythonFloat(text.slice(contentStart, end).trim());
  } catch (error) {
    if (error instanceof ValueError) return null;
    throw error;
  }
  return score === 0 || score === 0.5 || score === 1 ? score : null;
}

/** The details of a text over its limit (in code points, as Python counts), or undefined when it fits. */
export function textLengthError(text: string, name: string, maxChars: number): Record<string, unknown> | undefined {
  const length = pythonLen(text);
  if (length <= maxChars) return undefined;
  return { r_format: 0.0, reason: `${name}_too_long`, [`${name}_length`]: BigInt(length), [`${name}_max_length`]: BigInt(maxChars) };
}

/** The text after the last `</think>`, stripped; or null when `</think>` is required and absent. */
export function afterThinking(text: string, assertThinkEnd: boolean): string | null {
  if (assertThinkEnd && !text.includes("</think>")) return null;
  return text.split("</think>").at(-1)!.trim();
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The output_text parts of a Response's assistant messages, joined. */
export function assistantText(response: unknown): string {
  const output = isObject(response) ? response.output : undefined;
  if (!Array.isArray(output)) return "";
  let text = "";
  for (const item of output) {
    if (!isObject(item) || item.type !== "message" || item.role !== "assistant" || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (isObject(part) && part.type === "output_text") text += typeof part.text === "string" ? part.text : "";
  }
  return text;
}

/** `usage.output_tokens` (else `completion_tokens`) of a judge answer; 0 without usage. */
export function generatedTokenCount(response: unknown): number {
  const usage = isObject(response) ? response.usage : undefined;
  if (!isObject(usage)) return 0;
  for (const key of ["output_tokens", "completion_tokens"]) if (usage[key] !== undefined && usage[key] !== null) return Math.trunc(Number(usage[key]));
  return 0;
}

/** The judge keys NeMo Gym's proof server configs share, plus this port's prompt_templates_dir. */
export const ProofJudgeConfigFields = {
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_model_name: z.string().default(""),
  temperature: z.number().default(0.6),
  top_p: z.number().default(0.95),
  max_tokens: z.number().int().default(100000),
  assert_think_end: z.boolean().default(false),
  /** Ours: where the prompt templates are read from (default: the server's prompt_templates/, fetched there). */
  prompt_templates_dir: z.string().nullish(),
};

export interface ProofJudgeConfig {
  judge_model_server: { name: string };
  judge_model_name: string;
  temperature: number;
  top_p: number;
  max_tokens: number;
}

/** One judge call as NeMo Gym's proof servers make it: the text of the judge's assistant messages and its output tokens. */
export async function askProofJudge(caller: JudgeCaller, config: ProofJudgeConfig, userContent: string, row: Record<string, unknown>): Promise<{ text: string; generatedTokens: number }> {
  const serverName = config.judge_model_server.name;
  const endpoint = {
    serverName,
    params: { model: config.judge_model_name || serverName, temperature: config.temperature, top_p: config.top_p, max_output_tokens: config.max_tokens },
  };
  // A failed call is a JudgeError: /verify answers the judge_failed row (NeMo Gym's reraise_judge_errors).
  const { response } = await askJudge(caller, endpoint, [{ role: "user", content: userContent }], { row });
  return { text: assistantText(response), generatedTokens: generatedTokenCount(response) };
}

/**
 * NeMo Gym's proof servers ask an "external" judge instead when JUDGE_SERVER_ARGS is set (AsyncOpenAI clients, round
 * robin over SLURM_MASTER_NODE_HET_GROUP_<n>:<port>). Not here: a judge is always a server the config names, so
 * every judge call has the retries, the concurrency cap, the cache, the rollout id and the judge_failed boundary.
 */
export function refuseExternalJudge(serverLabel: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!env.JUDGE_SERVER_ARGS) return;
  throw new Error(
    `${serverLabel}: JUDGE_SERVER_ARGS is set, NeMo Gym's SLURM external-judge path, which this port does not take: declare an openai_model instance ` +
      "(base_url http://<node>:<port>/v1, the model JUDGE_SERVER_ARGS names) and point judge_model_server at it, then unset JUDGE_SERVER_ARGS",
  );
}

/**
 * A server's NeMo Gym prompt templates: read from its folder, where a missing one is fetched (pinned by sha256) in
 * the background at start; from a configured folder as they are. A template that cannot be had is a 501 naming it.
 */
export class ProofPromptTemplates {
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    /** The server's folder path inside NeMo Gym's repository, e.g. resources_servers/proof_judge. */
    private readonly serverPath: string,
    private readonly serverDir: string,
    private readonly configuredDir: string | null | undefined,
  ) {}

  /** Starts fetching the templates that are absent (the default folder only); failures are reported at use. */
  prefetch(names: readonly string[], log: { warn(message: string): void }): void {
    for (const name of names) this.load(name).catch((error: Error) => log.warn(error.message));
  }

  /** The `user` prompt of a template file. */
  async user(name: string): Promise<string> {
    const text = await this.load(name);
    const user = (parseYaml(text) as Record<string, unknown> | null)?.user;
    if (typeof user !== "string") throw new HttpError(501, `prompt template ${name}: no 'user' string in it`);
    return user;
  }

  private load(name: string): Promise<string> {
    let loading = this.pending.get(name);
    if (!loading) {
      loading = this.read(name);
      loading.catch(() => this.pending.delete(name));
      this.pending.set(name, loading);
    }
    return loading;
  }

  private async read(name: string): Promise<string> {
    if (this.configuredDir) {
      const path = join(this.configuredDir, name);
      if (!existsSync(path)) throw new HttpError(501, `prompt template ${path} is missing (prompt_templates_dir)`);
      return readFileSync(path, "utf8");
    }
    const repoPath = `${this.serverPath}/prompt_templates/${name}`;
    return readNemoGymServerFile(join(this.serverDir, "prompt_templates", name), pinnedNemoGymServerFile(repoPath), "set prompt_templates_dir");
  }
}

/** A template filled with str.format's rules. */
export const fillTemplate = (template: string, fields: Readonly<Record<string, string>>) => pythonFormat(template, [], fields);

/** Appends one verify's record to the log an environment variable names (NeMo Gym's *_LOG_JSONL_PATH); never fails verify. */
export function appendProofLog(path: string | undefined, record: Record<string, unknown>, log: { warn(message: string): void }): void {
  if (!path) return;
  try {
    appendFileSync(path, `${pythonJsonDumpsTyped({ ts: new Date().toISOString().replace("Z", "+00:00"), ...record }, { ensureAscii: false })}\n`, "utf8");
  } catch (error) {
    log.warn(`Failed to append log_jsonl ${path}: ${(error as Error).message}`);
  }
}
