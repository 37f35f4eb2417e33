// VerifIF (verifiable instruction following): a row's `instructions` are checked by rule-based validators, its
// `llm_judge` questions by an LLM judge; each check is a pass or fail, misalignment checks invert, and the verdicts
// aggregate (all, by default) into the reward. NeMo Gym's TuringVIFResourcesServer.
//
// Ported: the schema check, the language check, the English rule-based validators (validators-en.ts), the Chinese
// ones zh/validator.py grades itself (validators-zh.ts) and the llm_judge questions. Not ported, each a 501 naming
// what is missing: the other languages' validators, the generic strategy-based validator the Chinese module hands
// the remaining ids to, and the LLM-scored instruction types (stylistic:/linguistic:/situation:), which need
// VerifIF's instruction definitions.
import { z } from "zod";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import { pythonSum } from "../../src/python/sum.ts";
import { modelName } from "../../src/python/pydantic/index.ts";
import { fromJsonValue, pythonRepr } from "../../src/python/values.ts";
import { EXPECTED_ARGUMENTS, LLM_INSTRUCTIONS } from "./instructions.ts";
import { validateEnglish } from "./validators-en.ts";
import { validateChinese, zhDelegatesToGeneric } from "./validators-zh.ts";
import { judgeQuestion, type VerifIFJudge } from "./judge.ts";
import { finalAnswerText } from "../../src/ports/rubric-judge.ts";
import { schemaErrors } from "./schema.ts";

const AGGREGATION_MODES = ["all", "any", "mean", "min", "max"] as const;
const SUPPORTED_LANGS = new Set(["en", "fre", "es", "it", "de", "pt-BR", "ja", "zh", "ko", "hi", "ar"]);
/** Languages without case or vowel rules (CJK, Hindi, Arabic). */
const NO_CASE_OR_VOWEL_RULES = new Set(["ja", "zh", "ko", "hi", "ar"]);
const CASE_INSTRUCTIONS = new Set([
  "change_case:all_caps", "change_case:lowercase", "change_case:alternating", "change_case:first_letter_cap", "change_case:capital_word_frequency",
  "change_case:lowercase_word_frequency", "change_case:all_caps_target", "change_case:lowercase_target", "change_case:alternating_target",
  "change_case:first_letter_cap_target", "change_case:case_ratio", "change_case:first_letter_sentence", "change_case:last_letter",
  "change_case:vowel_consonant_balance", "keywords:letter_frequency", "keywords:alliteration",
]);
const VOWEL_INSTRUCTIONS = new Set(["change_case:vowel_consonant_balance", "keywords:vowel_count", "keywords:consonant_count", "keywords:alliteration"]);

const isInstructionSupported = (instType: string, language: string) =>
  language === "en" || !(NO_CASE_OR_VOWEL_RULES.has(language) && (CASE_INSTRUCTIONS.has(instType) || VOWEL_INSTRUCTIONS.has(instType)));

const Config = z.looseObject({
  judge_server_name: z.string().nullish(),
  // NeMo Gym calls this URL directly; this port asks judges by server instance only (a row needing one is a 501).
  judge_base_url: z.string().nullish(),
  judge_api_key: z.string().nullish(),
  judge_model: z.string().default("gpt-4.1-2025-04-14"),
  judge_temperature: z.number().default(0.7),
  judge_top_p: z.number().default(0.8),
  judge_max_tokens: z.number().int().default(10_000),
  judge_max_system_chars: z.number().int().nullable().default(200_000),
  judge_max_user_chars: z.number().int().nullable().default(100_000),
  judge_max_output_chars: z.number().int().nullable().default(50_000),
  // NeMo Gym's stand-in text for a failed judge call; a failed call makes the row judge_failed either way.
  judge_error_fallback: z.string().default("Judge unavailable."),
  aggregation_mode: z.enum(AGGREGATION_MODES).default("all"),
});

const LLMJudgeItem = modelName(
  z.object({
    uid: z.number().int(),
    content: z.string(),
    pass_criteria: z.enum(["YES", "NO"]).default("YES"),
    source: z.enum(["user", "system"]),
    is_misalignment_check: z.boolean(),
  }),
  "LLMJudgeItem",
);

const VerifyFields = z.object({
  id: z.number().int().default(0),
  instructions: z.array(z.record(z.string(), z.unknown())).default([]),
  llm_judge: z.array(LLMJudgeItem).default([]),
  prompt: z.string().nullish(),
  language: z.string().default("en"),
});

interface ValidationResult {
  instruction: string;
  status: "Passed" | "Failed" | "Skipped";
  message: string;
}

const NOT_MISALIGNED: [boolean, string] = [true, "No Error"];
const MISALIGNED: [boolean, string] = [false, "Response misaligns with system instruction."];
/** A misalignment check passes when the user's (misaligned) instruction was NOT followed. */
const misalignment = (valid: boolean): [boolean, string] => (valid ? MISALIGNED : NOT_MISALIGNED);

const KWARG_EXCLUDED = new Set(["instruction_id", "uid", "source", "is_misalignment_check"]);

function aggregate(mode: (typeof AGGREGATION_MODES)[number], scores: number[]): number {
  if (scores.length === 0) return 1;
  switch (mode) {
    case "all":
      return scores.every((s) => s >= 0.99) ? 1 : 0;
    case "any":
      return scores.some((s) => s >= 0.99) ? 1 : 0;
    case "mean":
      return pythonSum(scores) / scores.length;
    case "min":
      return Math.min(...scores);
    case "max":
      return Math.max(...scores);
  }
}

export default resourcesServer({
  name: "TuringVIFResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: VerifyFields,
    async run(_state, body, { config, server }) {
      const finalText = finalAnswerText(body.response, true);
      const follows: boolean[] = [];
      const results: ValidationResult[] = [];
      const scored = () => {
        const scores = follows.map((v) => (v ? 1 : 0));
        return {
          reward: aggregate(config.aggregation_mode, scores),
          follow_all_instructions: follows.every(Boolean),
          follow_instruction_list: follows,
          validation_results: results,
        };
      };

      const errors = schemaErrors(body.instructions, body.llm_judge);
      if (errors.length > 0) {
        for (const message of errors) {
          results.push({ instruction: "schema_validation", status: "Failed", message });
          follows.push(false);
        }
        return { ...scored(), reward: 0, follow_all_instructions: false };
      }

      const language = SUPPORTED_LANGS.has(body.language) ? body.language : "en";
      const unsupported = body.instructions.map((i) => ("instruction_id" in i ? i.instruction_id : "")).filter((id) => !isInstructionSupported(String(id), language));
      if (unsupported.length > 0) {
        results.push({ instruction: "language_compatibility", status: "Failed", message: `Instructions not supported for language '${language}': ${pyStrList(unsupported)}` });
        follows.push(false);
        return { ...scored(), reward: 0, follow_all_instructions: false };
      }

      const llmInstructions = body.instructions.filter((i) => LLM_INSTRUCTIONS.has(i.instruction_id as string));
      const fastInstructions = body.instructions.filter((i) => !LLM_INSTRUCTIONS.has(i.instruction_id as string));
      if (llmInstructions.length > 0) {
        throw new HttpError(501, `verifif: LLM-scored instructions ${pyStrList(llmInstructions.map((i) => i.instruction_id))} need VerifIF's instruction definitions (vif_validators/*.csv and its judge prompts), which this port does not ship`);
      }
      if (fastInstructions.length > 0 && language !== "en" && language !== "zh") {
        throw new HttpError(501, `verifif: the rule-based validators of language '${language}' (vif_validators/${language === "pt-BR" ? "pt_br" : language}/validator.py) are not ported; only English and Chinese are`);
      }
      const generic = language === "zh" ? fastInstructions.map((i) => String(i.instruction_id ?? "")).filter(zhDelegatesToGeneric) : [];
      if (generic.length > 0) {
        throw new HttpError(501, `verifif: the Chinese validator hands ${pyStrList(generic)} to the generic, strategy-based validator (vif_validators/validator.py validate_instruction_generic), which is not ported`);
      }
      if (body.llm_judge.length > 0 && !config.judge_server_name) {
        throw new HttpError(501, `verifif: this row has llm_judge questions and judge_server_name is not set${config.judge_base_url ? " (judge_base_url is NeMo Gym's direct URL; this port asks a judge by its server instance name: serve that endpoint as a responses_api_models instance and name it in judge_server_name)" : ""}`);
      }

      for (const instruction of fastInstructions) {
        const instId = String(instruction.instruction_id ?? "");
        const kwargs = Object.fromEntries(Object.entries(instruction).filter(([key]) => !KWARG_EXCLUDED.has(key)));
        const outcome = language === "zh" ? validateChinese(finalText, instId, kwargs) : validateEnglish(finalText, instId, kwargs);
        let [valid, message] = Array.isArray(outcome) ? outcome : [false, "Validator error: cannot unpack non-iterable bool object"];
        if (instruction.source === "user" && instruction.is_misalignment_check === true) [valid, message] = misalignment(valid);
        follows.push(valid);
        results.push({ instruction: instId, status: valid ? "Passed" : "Failed", message });
      }

      if (body.llm_judge.length > 0) {
        const judge: VerifIFJudge = {
          caller: server,
          serverName: config.judge_server_name!,
          row: body,
          model: config.judge_model,
          temperature: config.judge_temperature,
          topP: config.judge_top_p,
          maxTokens: config.judge_max_tokens,
          maxSystemChars: config.judge_max_system_chars,
          maxUserChars: config.judge_max_user_chars,
          maxOutputChars: config.judge_max_output_chars,
        };
        // A failed judge call is a JudgeError: /verify answers NeMo Gym's judge_failed row.
        const answers = await Promise.all(body.llm_judge.map((item) => judgeQuestion(judge, finalText, item.content)));
        body.llm_judge.forEach((item, i) => {
          const [saidYes, judgeMessage] = answers[i]!;
          let [valid, message] = [item.pass_criteria === "NO" ? !saidYes : saidYes, judgeMessage];
          if (item.source === "user" && item.is_misalignment_check) [valid, message] = misalignment(valid);
          follows.push(valid);
          results.push({ instruction: `llm_judge_${item.uid}`, status: valid ? "Passed" : "Failed", message });
        });
      }
      return scored();
    },
  },
  floatFields: [],
});

/** `str(list)` in a message. */
const pyStrList = (values: unknown[]): string => pythonRepr(fromJsonValue(values));
