// MMMLU (NeMo Gym's benchmarks/mmmlu/prepare.py and mmmlu_utils.py): OpenAI's simple-evals translations of MMLU,
// one CSV per language (all but English by default; include_english adds it last), read as pandas.read_csv reads
// them (src/python/pandas-csv.ts: "None", "NA", "" and pandas' other NA spellings become NaN, which the question
// shows as "nan" and the options carry as NaN). Each row: simple-evals' prompt, the letter, the subject's
// category, the answer regexes of every language, and a uuid seeded by language, question and answer.
import { definePrepare, str, url, type Row } from "../../src/rollouts/prepare/define.ts";
import { UserError } from "../../src/config/errors.ts";
import { NAMESPACE_URL, pythonJsonDumpsTyped, pythonStrip, uuid5 } from "../../src/python/index.ts";
import { SUBJECT_TO_CATEGORY } from "./categories.ts";

export const SUPPORTED_LANGUAGES = ["AR-XY", "BN-BD", "DE-DE", "ES-LA", "FR-FR", "HI-IN", "ID-ID", "IT-IT", "JA-JP", "KO-KR", "PT-BR", "ZH-CN", "SW-KE", "YO-NG"];
const OPTIONS = ["A", "B", "C", "D"] as const;
const CSV_URL = "https://openaipublic.blob.core.windows.net/simple-evals/";

// simple-evals' multiple-choice prompt; {Question}, {A}…{D} are the row's cells as Python's str() shows them.
const QUERY_TEMPLATE =
  "Answer the following multiple choice question. The last line of your response should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by step before answering.\n\n{Question}\n\nA) {A}\nB) {B}\nC) {C}\nD) {D}";
const LETTERS = "([A-D]|[\u0623-\u062f]|[\u0985]|[\u09ac]|[\u09a1]|[\u09a2]|[\uff21]|[\uff22]|[\uff23]|[\uff24])";
const ANSWER_PATTERN = `(?i){}[ \t]*${LETTERS}`;
// The answer prefixes of every language (the second has six zero-width spaces, as NeMo Gym's list has).
const ANSWER_PREFIXES = [
  "Answer\\s*:", "Answer\\s*:\u200b\u200b\u200b\u200b\u200b\u200b", "\u0989\u09a4\u09cd\u09a4\u09b0\\s*:", "\u0909\u0924\u094d\u0924\u0930\\s*:", "\u0989\u09a4\u09cd\u09a4\u09b0\u0983",
  "\u0989\u09a4\u09cd\u09a4\u09b0\\s*:", "Antwort\\s*:", "\ub2f5\ubcc0\\s*:", "\uc815\ub2f5\\s*:", "\ub2f5\\s*:", "\u7b54\u6848\\s*\uff1a", "\u7b54\u6848\\s*:", "\u7b54\\s*\uff1a", "\u7b54\\s*:",
  "\u7b54\u590d\\s*\uff1a", "\u7b54\u66f0\\s*\uff1a", "\u0627\u0644\u0625\u062c\u0627\u0628\u0629:", "\u0627\u0644\u062c\u0648\u0627\u0628:", "\u0625\u062c\u0627\u0628\u0629:",
  "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0627\u0644\u0646\u0647\u0627\u0626\u064a\u0629:", "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0627\u0644\u0635\u062d\u064a\u062d\u0629:",
  "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0627\u0644\u0635\u062d\u064a\u062d\u0629 \u0647\u064a:", "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0647\u064a:", "\u0627\u0644\u062c\u0648\u0627\u0628 \u0627\u0644\u0646\u0647\u0627\u0626\u064a:",
  "Respuesta\\s*:", "Risposta\\s*:", "\u7b54\u3048\\s*:", "\u7b54\u3048\\s*\uff1a", "\u56de\u7b54\\s*:", "\u56de\u7b54\\s*\uff1a", "\u89e3\u7b54\\s*:", "Jawaban\\s*:", "R\u00e9ponse\\s*:", "Resposta\\s*:",
  "Jibu\\s*:", "Idahun\\s*:", "\u00ccd\u00e1h\u00f9n\\s*:", "Id\u00e1h\u00f9n\\s*:", "A\u0300m\u1ecd\u0300na\u0300\\s*:", "\u00c0d\u00e1h\u00f9n\\s*:", "A\u0300nu\u0301go\u0323\\s*:", "\u00c0\u1e63\u00e0y\u00e0n\\s*:",
];
const OUTPUT_REGEXES = [...ANSWER_PREFIXES.map((prefix) => ANSWER_PATTERN.replace("{}", prefix)), `[\\s\\S]*\\b\\(?\\s*${LETTERS}\\s*\\)?\\.?\\b`];

/** `QUERY_TEMPLATE.format(**row)`. */
const formatQuestion = (row: Row) => QUERY_TEMPLATE.replace(/\{(Question|A|B|C|D)\}/g, (_, field: string) => str(row[field]));

export default definePrepare<{ languages: readonly string[] | null; include_english: boolean }>({
  defaults: { languages: null, include_english: false },
  ensureAscii: false,
  sources: ({ languages, include_english }) => {
    const selected = (languages ?? SUPPORTED_LANGUAGES).filter((language) => language !== "EN-US");
    if (include_english) selected.push("EN-US");
    const invalid = [...new Set(selected)].filter((language) => !SUPPORTED_LANGUAGES.includes(language) && !(include_english && language === "EN-US"));
    if (invalid.length > 0) throw new UserError(`mmmlu: unsupported languages: ${invalid.join(", ")} (supported: ${SUPPORTED_LANGUAGES.join(", ")}; EN-US with include_english)`);
    return selected.map((language) => url(`${CSV_URL}${language === "EN-US" ? "mmlu.csv" : `mmlu_${language}.csv`}`, { format: "pandas-csv", tag: language }));
  },
  convert: (entry, { tag: language }) => {
    const expectedAnswer = pythonStrip(str(entry.Answer)).toUpperCase();
    const subject = entry.Subject;
    const question = formatQuestion(entry);
    const seed = pythonJsonDumpsTyped({ language, question, answer: expectedAnswer }, { sortKeys: true, ensureAscii: false });
    return {
      question,
      options: OPTIONS.map((letter) => ({ [letter]: entry[letter] })),
      expected_answer: expectedAnswer,
      template_metadata: { output_regex: OUTPUT_REGEXES },
      subset_for_metrics: language,
      category: typeof subject === "string" && Object.hasOwn(SUBJECT_TO_CATEGORY, subject) ? SUBJECT_TO_CATEGORY[subject] : "other",
      uuid: uuid5(NAMESPACE_URL, seed),
    };
  },
});
