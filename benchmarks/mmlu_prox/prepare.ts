// MMLU-ProX (NeMo Gym's benchmarks/mmlu_prox/prepare.py): li-lab/MMLU-ProX's test split per language, ten options
// lettered A-J, each question wrapped in its language's templates. Those templates are lm-evaluation-harness's
// lang_libs.py, fetched at the commit NeMo Gym pins and checked against its sha256; NeMo Gym executes that file,
// this port reads its LANG_LIBS and LANG_SUBJECTS as literals (src/python/literal.ts) and never runs it — a file
// they cannot be read from is refused in one line.
import { UserError } from "../../src/config/errors.ts";
import { definePrepare, huggingFace, str, url, type Row } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, pythonFormat, pythonJsonDumpsTyped, pythonStrip, readPythonConstants, uuid5 } from "../../src/python/index.ts";

const LANG_LIBS_COMMIT = "f4d4b3de3ee6741a7151a9fe74945ee515262f4c";
export const LANG_LIBS_SHA256 = "582a892b4e8419c16384552b369d7ba828418c57768ccdd82d61172116b3da55";
export const LANG_LIBS_URL = `https://raw.githubusercontent.com/EleutherAI/lm-evaluation-harness/${LANG_LIBS_COMMIT}/lm_eval/tasks/mmlu_prox/lang_libs.py`;
const REPO = "li-lab/MMLU-ProX";
export const DEFAULT_LANGUAGES = ["af", "ar", "bn", "cs", "de", "en", "es", "fr", "hi", "hu", "id", "it", "ja", "ko", "mr", "ne", "pt", "ru", "sr", "sw", "te", "th", "uk", "ur", "vi", "wo", "yo", "zh", "zu"];
const LETTERS = "ABCDEFGHIJ".split("");

interface LangLibs {
  /** Per language: [question prefix, options prefix, answer prefix, description template, few-shot answer prefix, answer format]. */
  LANG_LIBS: Record<string, string[]>;
  LANG_SUBJECTS: Record<string, Record<string, string>>;
}

function readLangLibs(data: Buffer): LangLibs {
  try {
    return readPythonConstants(data.toString("utf8"), ["LANG_LIBS", "LANG_SUBJECTS"]) as unknown as LangLibs;
  } catch (error) {
    throw new UserError(`mmlu_prox: lm-evaluation-harness's lang_libs.py (${LANG_LIBS_URL}): ${(error as Error).message}; its templates are read as data, never run as Python`);
  }
}

/** Python's `s.lstrip(chars)`: leading characters that are any of `chars`. */
const lstripChars = (text: string, chars: string) => text.replace(new RegExp(`^[${chars.replace(/[\]\\^-]/g, "\\$&")}]+`), "");

function formatEntry(entry: Row, language: string, { LANG_LIBS, LANG_SUBJECTS }: LangLibs): Row {
  const category = (entry.category as string).replaceAll(" ", "_");
  const choices = LETTERS.map((_, i) => entry[`option_${i}`]);
  const lib = LANG_LIBS[language];
  const subject = LANG_SUBJECTS[language]?.[category];
  if (!lib || subject === undefined) throw new UserError(`mmlu_prox: lang_libs.py has no templates for language ${language}${lib ? ` and category ${category}` : ""} (NeMo Gym's KeyError)`);
  const format = (template: string, args: string[], kwargs?: Record<string, string>) => {
    try {
      return pythonFormat(template, args, kwargs);
    } catch (error) {
      throw new UserError(`mmlu_prox: lang_libs.py (${language}): ${(error as Error).message}`);
    }
  };
  const description = `${format(lib[3]!, [], { subject, ans_suffix: format(lib[5]!, ["X"]) })}\n`;
  const optionsText = LETTERS.map((letter, i) => `${letter}. ${str(choices[i])}`).join("\n");
  const question = `${description}${lib[0]}\n${str(entry.question)}\n${lib[1]}\n${optionsText}\n`;
  let extractRegex = lib[5]!.replaceAll("({})", String.raw`\(?([ABCDEFGHIJ])\)?`);
  if (language === "en") {
    extractRegex = pythonStrip(lstripChars(extractRegex, "the"));
    extractRegex = extractRegex.replaceAll("\\(", "\\**\\(").replaceAll("\\)?", "\\)?\\**");
  }
  // The same question is in every language: the language is part of the uuid's seed.
  const seed = pythonJsonDumpsTyped({ question: entry.question, options: choices, language }, { sortKeys: true });
  return {
    question,
    options: LETTERS.map((letter, i) => ({ [letter]: choices[i] })),
    expected_answer: entry.answer,
    template_metadata: { output_regex: extractRegex },
    language,
    category,
    uuid: uuid5(NAMESPACE_URL, seed),
  };
}

export default definePrepare<{ languages: readonly string[] }, { langLibs?: LangLibs }>({
  defaults: { languages: DEFAULT_LANGUAGES },
  // lang_libs.py first: its templates are read before any row is converted, as NeMo Gym loads them first.
  sources: ({ languages }) => [url(LANG_LIBS_URL, { format: "file", sha256: LANG_LIBS_SHA256, tag: "lang_libs" }), ...languages.map((language) => huggingFace(REPO, "test", { config: language, tag: language }))],
  setup: () => ({}),
  convert: (row, { tag, state }) => {
    if (tag === "lang_libs") {
      state.langLibs = readLangLibs(row.data as Buffer);
      return null;
    }
    return formatEntry(row, tag!, state.langLibs!);
  },
});
