// PolyMath (NeMo Gym's benchmarks/polymath/prepare.py): Qwen/PolyMath's four difficulty splits per language, each
// question followed by its language's instruction (and, if asked, a language-control sentence), weighted by
// difficulty (low 1, medium 2, high 4, top 8). The instructions are QwenLM/PolyMath's instruction.py: NeMo Gym
// executes that file; this port reads its three dicts as literals (src/python/literal.ts) and never runs it.
import { UserError } from "../../src/config/errors.ts";
import { definePrepare, huggingFace, url, type Row } from "../../src/rollouts/prepare/define.ts";
import { pythonStrip, readPythonConstants } from "../../src/python/index.ts";

export const INSTRUCTIONS_URL = "https://raw.githubusercontent.com/QwenLM/PolyMath/main/instruction.py";
const REPO = "Qwen/PolyMath";
const DIFFICULTY_WEIGHT: Record<string, bigint> = { low: 1n, medium: 2n, high: 4n, top: 8n };
/**
 * instruction.py's language_dic keys, in order (QwenLM/PolyMath at fbf4e41). NeMo Gym's default is "every key of the
 * file"; the downloads are chosen before the file is read, so the file must still list exactly these.
 */
export const SUPPORTED_LANGUAGES = ["en", "zh", "ar", "bn", "de", "es", "fr", "id", "it", "ja", "ko", "ms", "pt", "ru", "sw", "te", "th", "vi"];

interface Instructions {
  language_dic: Record<string, string>;
  query_dic: Record<string, string>;
  language_control: Record<string, Record<string, string>>;
}
interface Args extends Record<string, unknown> {
  languages: readonly string[] | null;
  language_control_mode: string | null;
}

function readInstructions(data: Buffer, args: Args): Instructions {
  let read: Instructions;
  try {
    read = readPythonConstants(data.toString("utf8"), ["language_dic", "query_dic", "language_control"]) as unknown as Instructions;
  } catch (error) {
    throw new UserError(`polymath: QwenLM/PolyMath's instruction.py (${INSTRUCTIONS_URL}): ${(error as Error).message}; its instructions are read as data, never run as Python`);
  }
  const supported = Object.keys(read.language_dic);
  if (args.languages === null && supported.join() !== SUPPORTED_LANGUAGES.join()) {
    throw new UserError(`polymath: instruction.py now lists the languages ${supported.join(", ")} (this port knows ${SUPPORTED_LANGUAGES.join(", ")}); pass +prepare_script_args.languages=[...]`);
  }
  const invalid = (args.languages ?? []).filter((language) => !supported.includes(language));
  if (invalid.length) throw new UserError(`polymath: unsupported languages: ${invalid.join(", ")}; supported: ${supported.join(", ")}`);
  if (args.language_control_mode !== null && !Object.hasOwn(read.language_control, args.language_control_mode)) {
    throw new UserError(`polymath: unsupported language_control mode ${JSON.stringify(args.language_control_mode)}; supported: ${Object.keys(read.language_control).join(", ")}`);
  }
  return read;
}

function formatEntry(entry: Row, language: string, difficulty: string, mode: string | null, { query_dic, language_control }: Instructions): Row {
  const instruction = query_dic[language];
  const control = mode === null ? "" : language_control[mode]![language];
  if (instruction === undefined || control === undefined) throw new UserError(`polymath: instruction.py has no ${instruction === undefined ? "query" : `${mode} control`} text for ${language} (NeMo Gym's KeyError)`);
  return {
    question: pythonStrip(`${entry.question}\n\n${instruction} ${control}`),
    problem: entry.question,
    expected_answer: entry.answer,
    language,
    subset_for_metrics: language,
    difficulty,
    weight: DIFFICULTY_WEIGHT[difficulty],
    language_control_mode: mode,
  };
}

export default definePrepare<Args, { instructions?: Instructions }>({
  defaults: { languages: null, language_control_mode: null },
  ensureAscii: false,
  // instruction.py first, as NeMo Gym loads it before any split.
  sources: ({ languages }) => [
    url(INSTRUCTIONS_URL, { format: "file", tag: "instructions" }),
    ...(languages ?? SUPPORTED_LANGUAGES).flatMap((language) => Object.keys(DIFFICULTY_WEIGHT).map((difficulty) => huggingFace(REPO, difficulty, { config: language, tag: `${language}/${difficulty}` }))),
  ],
  setup: () => ({}),
  convert: (row, { tag, args, state }) => {
    if (tag === "instructions") {
      state.instructions = readInstructions(row.data as Buffer, args);
      return null;
    }
    const [language, difficulty] = tag!.split("/") as [string, string];
    return formatEntry(row, language, difficulty, args.language_control_mode, state.instructions!);
  },
});
