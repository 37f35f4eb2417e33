// LiveCodeBench-X (NeMo Gym's benchmarks/livecodebench-x/prepare.py): nvidia/Nemotron-Multilinugual-Eval-LCB's
// translated problems (config = LiveCodeBench version, split = language), each joined on task_id with that
// version's problem in livecodebench/code_generation_lite (refs/pr/7) for its unit tests and difficulty; a
// translated problem with no match there is left out. The question is the instruction in the target language (or
// English with prompt_language=en), a blank line, the translated statement.
import { definePrepare, type Row } from "../../src/rollouts/prepare/define.ts";
import { get, lcbSource, unitTests } from "../livecodebench/lcb-rows.ts";

const MULTILINGUAL_REPO = "nvidia/Nemotron-Multilinugual-Eval-LCB";
const SUPPORTED_LANGUAGES = ["de", "es", "fr", "ja"];
const SUPPORTED_VERSIONS = ["v5", "v6"];
const EN_INSTRUCTION = "Here is a problem for which you need to generate executable code in the Python programming language.";
const CODEGEN_INSTRUCTIONS: Record<string, string> = {
  de: "Hier ist ein Problem, für das Sie ausführbaren Code in der Programmiersprache Python generieren müssen.",
  es: "Aquí tienes un problema para el cual necesitas generar un código ejecutable en el lenguaje de programación Python.",
  fr: "Voici un problème pour lequel vous devez générer du code exécutable en langage de programmation Python.",
  ja: "以下は、Pythonプログラミング言語で実行可能なコードを生成する必要がある問題です。",
};

interface Args extends Row {
  languages: string[] | null;
  versions: string[] | null;
  prompt_language: string;
}

/** The canonical problems of the version being read, by task_id (NeMo Gym builds one index per version, in turn). */
interface State {
  version: string | undefined;
  canonical: Map<string, { unit_tests: unknown; difficulty: unknown }>;
}

const CANONICAL = "canonical:";

export default definePrepare<Args, State>({
  defaults: { languages: null, versions: null, prompt_language: "target" },
  // Per version: its canonical problems first, then each language's translations.
  sources: ({ languages, versions }) =>
    (versions ?? SUPPORTED_VERSIONS).flatMap((version) => [
      lcbSource(`release_${version}`, `${CANONICAL}${version}`),
      ...(languages ?? SUPPORTED_LANGUAGES).map((lang) => ({ kind: "huggingface" as const, repo: MULTILINGUAL_REPO, config: version, split: lang, tag: lang })),
    ]),
  setup: () => ({ version: undefined, canonical: new Map() }),
  ensureAscii: false,
  convert: (row, { tag, source, state, args }) => {
    if (tag!.startsWith(CANONICAL)) {
      const version = tag!.slice(CANONICAL.length);
      if (state.version !== version) state.canonical = new Map();
      state.version = version;
      const taskId = get(row, "question_id", "");
      if (taskId) state.canonical.set(taskId, { unit_tests: unitTests(row), difficulty: get(row, "difficulty", "unknown") });
      return null;
    }
    const lang = tag!;
    // The index is the one of this translation's version (an empty release leaves none).
    const canonical = source.kind === "huggingface" && source.config === state.version ? state.canonical.get(row.task_id) : undefined;
    if (!canonical) return null;
    const instruction = args.prompt_language === "target" ? CODEGEN_INSTRUCTIONS[lang] : EN_INSTRUCTION;
    if (instruction === undefined) throw new Error(`livecodebench-x: no instruction for language '${lang}'`);
    return {
      question: `${instruction}\n\n${row.question}`,
      problem: row.question,
      task_id: row.task_id,
      release_version: row.release_version,
      subset_for_metrics: lang,
      target_language: lang,
      verifier_metadata: { unit_tests: canonical.unit_tests, difficulty: canonical.difficulty },
    };
  },
});
