// FLORES-200 (NeMo Gym's benchmarks/flores200/prepare.py): openlanguagedata/flores_plus, every source language paired
// with every other target language sentence by sentence (English into each devtest language by default). Each
// language's split is loaded once (sorted codes, as NeMo Gym loads them); the pairs are written source-major, then
// target, then sentence. A pair of languages with different sentence counts is NeMo Gym's zip(strict=True) error.
//
// The language codes and English names are NeMo Gym's data files (flores_language_names.json, the devtest list),
// fetched from its repository at the pinned commit and checked against their sha256 (never committed). Its
// prefetch_* arguments warm model caches (COMET, GlotLID, SacreBLEU's SentencePiece) for metrics this port's
// wmt_translation server computes itself or answers 501 for; they change nothing here.
import { UserError } from "../../src/config/errors.ts";
import { nemoGymRawBaseUrl } from "../../src/config/nemo-gym-files.ts";
import { definePrepare, huggingFace, url, type Row, type UrlSource } from "../../src/rollouts/prepare/define.ts";
import { parsePythonJson } from "../../src/rollouts/prepare/readers.ts";
import { compareStrings } from "../../src/python/str.ts";

const NAMES_PATH = "benchmarks/flores200/data/flores_language_names.json";
const DEVTEST_PATH = "benchmarks/flores200/data/flores_devtest_languages.json";
const namesSource = (): UrlSource => url(`${nemoGymRawBaseUrl()}/${NAMES_PATH}`, { format: "file", sha256: "ed9694663de483a2d7d908d662927031546e81e006c51b1ad173663928fb342e", tag: "names" });
const devtestSource = (): UrlSource => url(`${nemoGymRawBaseUrl()}/${DEVTEST_PATH}`, { format: "file", sha256: "71465aa72de19083256d800b96f25b17bd3e1c0f1cc345688fc1022174a5d952", tag: "devtest" });

interface Args extends Record<string, unknown> {
  languages: readonly string[] | null;
  source_languages: readonly string[] | null;
  target_languages: readonly string[] | null;
  split: string;
  prefetch_comet: boolean;
  prefetch_glotlid: boolean;
  prefetch_spbleu: boolean;
}
interface Metadata {
  names: Record<string, string>;
  devtest: Set<string>;
}
interface Plan extends Metadata {
  sourceLanguages: string[];
  targetLanguages: string[];
}

function readMetadata(namesData: Buffer, devtestData: Buffer): Metadata {
  const names = parsePythonJson(namesData.toString("utf8"));
  const devtest = parsePythonJson(devtestData.toString("utf8"));
  if (names === null || typeof names !== "object" || Array.isArray(names)) throw new UserError(`flores200: ${NAMES_PATH} is not a JSON object of language names`);
  if (!Array.isArray(devtest)) throw new UserError(`flores200: ${DEVTEST_PATH} is not a JSON list of language codes`);
  return { names: names as Record<string, string>, devtest: new Set(devtest as string[]) };
}

/** prepare()'s language lists and its checks, in its order: every code known, then every one with a devtest split. */
function plan(args: Args, { names, devtest }: Metadata): Plan {
  const defaultTargets = Object.keys(names).filter((code) => code !== "eng_Latn" && devtest.has(code));
  const sourceLanguages = [...(args.source_languages ?? args.languages ?? ["eng_Latn"])];
  const targetLanguages = [...(args.target_languages ?? args.languages ?? defaultTargets)];
  for (const language of [...sourceLanguages, ...targetLanguages]) {
    if (!Object.hasOwn(names, language)) throw new UserError(`flores200: Unknown FLORES+ configuration code '${language}'. Use a complete code such as 'eng_Latn' or 'deu_Latn'.`);
  }
  if (args.split === "devtest") {
    for (const languages of [sourceLanguages, targetLanguages]) {
      const unsupported = languages.filter((language) => !devtest.has(language));
      if (unsupported.length) throw new UserError(`flores200: These FLORES+ configurations do not provide devtest: ${unsupported.join(", ")}`);
    }
  }
  return { names, devtest, sourceLanguages, targetLanguages };
}

interface State {
  namesData?: Buffer;
  plan?: Plan;
  texts: Map<string, string[]>;
}

export default definePrepare<Args, State>({
  defaults: { languages: null, source_languages: null, target_languages: null, split: "devtest", prefetch_comet: true, prefetch_glotlid: true, prefetch_spbleu: true },
  sources: async (args, lookups) => {
    const { sourceLanguages, targetLanguages } = plan(args, readMetadata(await lookups.file(namesSource()), await lookups.file(devtestSource())));
    const allLanguages = [...new Set([...sourceLanguages, ...targetLanguages])].sort(compareStrings);
    return [namesSource(), devtestSource(), ...allLanguages.map((language) => huggingFace("openlanguagedata/flores_plus", args.split, { config: language, tag: language }))];
  },
  setup: () => ({ texts: new Map() }),
  convert: (row: Row, { tag, args, state }) => {
    if (tag === "names") state.namesData = row.data as Buffer;
    else if (tag === "devtest") state.plan = plan(args, readMetadata(state.namesData!, row.data as Buffer));
    else if (state.texts.has(tag!)) state.texts.get(tag!)!.push(row.text);
    else state.texts.set(tag!, [row.text]);
    return null;
  },
  finish: (state) => {
    const { names, sourceLanguages, targetLanguages } = state.plan!;
    const rows: Row[] = [];
    for (const source of sourceLanguages) {
      for (const target of targetLanguages) {
        if (source === target) continue;
        const [sourceTexts, targetTexts] = [state.texts.get(source) ?? [], state.texts.get(target) ?? []];
        if (sourceTexts.length !== targetTexts.length) throw new UserError(`flores200: ${source} has ${sourceTexts.length} sentences and ${target} ${targetTexts.length} (NeMo Gym's zip(strict=True) raises)`);
        sourceTexts.forEach((text, i) => rows.push({ text, translation: targetTexts[i], source_language: source, target_language: target, source_lang_name: names[source], target_lang_name: names[target] }));
      }
    }
    return rows;
  },
});
