// WMT24++ (NeMo Gym's benchmarks/wmt24pp/prepare.py): google/wmt24pp's English → target pairs, one `en-<lang>` config
// per target language (every language of NeMo Gym's wmt24pp_language_names.json by default, in its order), rows
// marked is_bad_source dropped, each row carrying both language codes and English names.
//
// The language names are NeMo Gym's data file, fetched from its repository at the pinned commit and checked against
// its sha256 (never committed). NeMo Gym's prepare also pre-downloads the COMET model and SacreBLEU's FLORES-200
// SentencePiece model into the Hugging Face cache (prefetch_comet / prefetch_spbleu): a cache warm-up for metrics this
// port's wmt_translation server computes itself or answers 501 for, so those arguments change nothing here.
import { UserError } from "../../src/config/errors.ts";
import { nemoGymRawBaseUrl } from "../../src/config/nemo-gym-files.ts";
import { definePrepare, huggingFace, url, type Row, type UrlSource } from "../../src/rollouts/prepare/define.ts";
import { parsePythonJson } from "../../src/rollouts/prepare/readers.ts";

const NAMES_PATH = "benchmarks/wmt24pp/data/wmt24pp_language_names.json";
const NAMES_SHA256 = "0b48c8ff3dfbe3f0d7d6e7bb8c093f7702feda487388e87f011d7e7a3915f031";
export const languageNamesSource = (): UrlSource => url(`${nemoGymRawBaseUrl()}/${NAMES_PATH}`, { format: "file", sha256: NAMES_SHA256, tag: "names" });

export function readLanguageNames(data: Buffer, label: string): Record<string, string> {
  const names = parsePythonJson(data.toString("utf8"));
  if (names === null || typeof names !== "object" || Array.isArray(names)) throw new UserError(`${label}: not a JSON object of language names`);
  return names as Record<string, string>;
}

interface Args extends Record<string, unknown> {
  target_languages: readonly string[] | null;
  prefetch_comet: boolean;
  prefetch_spbleu: boolean;
}

/** The target languages NeMo Gym's prepare() uses: the file's, or the given ones once each (dict.fromkeys), all known. */
function targetLanguages(args: Args, names: Record<string, string>): string[] {
  if (args.target_languages === null) return Object.keys(names);
  const languages = [...new Set(args.target_languages)];
  const unknown = languages.filter((language) => !Object.hasOwn(names, language));
  if (unknown.length) throw new UserError(`wmt24pp: requested target languages [${unknown.join(",")}] are not in wmt24pp. Available languages: [${Object.keys(names).join(",")}]`);
  return languages;
}

export default definePrepare<Args, { names?: Record<string, string> }>({
  defaults: { target_languages: null, prefetch_comet: true, prefetch_spbleu: true },
  sources: async (args, lookups) => {
    const names = readLanguageNames(await lookups.file(languageNamesSource()), NAMES_PATH);
    return [languageNamesSource(), ...targetLanguages(args, names).map((language) => huggingFace("google/wmt24pp", "train", { config: `en-${language}`, tag: language }))];
  },
  setup: () => ({}),
  convert: (row: Row, { tag, state }) => {
    if (tag === "names") {
      state.names = readLanguageNames(row.data as Buffer, NAMES_PATH);
      return null;
    }
    if (row.is_bad_source) return null;
    return { text: row.source, translation: row.target, source_language: "en", target_language: tag, source_lang_name: "English", target_lang_name: state.names![tag!] };
  },
});
