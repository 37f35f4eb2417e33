// The text measures of the library's instructions_util: its own regex sentence splitter (used by the
// first/last-word and position checkers), word counting (NLTK's RegexpTokenizer(r"\w+")), and sentence
// counting (NLTK's punkt, see punkt.ts).
import { pythonFindall, pythonSub } from "../../python/re/index.ts";
import { pythonStrip } from "../../python/str.ts";
import { punktSentences } from "./punkt.ts";

const ALPHABETS = "([A-Za-z])";
const PREFIXES = "(Mr|St|Mrs|Ms|Dr)[.]";
const SUFFIXES = "(Inc|Ltd|Jr|Sr|Co)";
const STARTERS = "(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\\s|She\\s|It\\s|They\\s|Their\\s|Our\\s|We\\s|But\\s|However\\s|That\\s|This\\s|Wherever)";
const ACRONYMS = "([A-Z][.][A-Z][.](?:[A-Z][.])?)";
const WEBSITES = "[.](com|net|org|io|gov|edu|me)";
const DIGITS = "([0-9])";

/** `instructions_util.split_into_sentences`: periods that are not abbreviations, `?` and `!` end sentences. */
export function splitIntoSentences(input: string): string[] {
  let text = ` ${input}  `.replaceAll("\n", " ");
  text = pythonSub(PREFIXES, "\\1<prd>", text);
  text = pythonSub(WEBSITES, "<prd>\\1", text);
  text = pythonSub(`${DIGITS}[.]${DIGITS}`, "\\1<prd>\\2", text);
  text = pythonSub("\\.{2,}", (match) => "<prd>".repeat(match.groups[0]!.length) + "<stop>", text);
  if (text.includes("Ph.D")) text = text.replaceAll("Ph.D.", "Ph<prd>D<prd>");
  text = pythonSub(`\\s${ALPHABETS}[.] `, " \\1<prd> ", text);
  text = pythonSub(`${ACRONYMS} ${STARTERS}`, "\\1<stop> \\2", text);
  text = pythonSub(`${ALPHABETS}[.]${ALPHABETS}[.]${ALPHABETS}[.]`, "\\1<prd>\\2<prd>\\3<prd>", text);
  text = pythonSub(`${ALPHABETS}[.]${ALPHABETS}[.]`, "\\1<prd>\\2<prd>", text);
  text = pythonSub(` ${SUFFIXES}[.] ${STARTERS}`, " \\1<stop> \\2", text);
  text = pythonSub(` ${SUFFIXES}[.]`, " \\1<prd>", text);
  text = pythonSub(` ${ALPHABETS}[.]`, " \\1<prd>", text);
  text = text.replaceAll(".”", "”.").replaceAll('."', '".').replaceAll('!"', '"!').replaceAll('?"', '"?');
  text = text.replaceAll(".", ".<stop>").replaceAll("?", "?<stop>").replaceAll("!", "!<stop>").replaceAll("<prd>", ".");
  const sentences = text.split("<stop>").map((sentence) => pythonStrip(sentence));
  if (sentences.length > 0 && sentences.at(-1) === "") sentences.pop();
  return sentences;
}

/** `instructions_util.count_words`: runs of Unicode word characters. */
export const countWords = (text: string): number => pythonFindall("\\w+", text).length;

/** `instructions_util.count_sentences`: the sentences NLTK's English punkt finds. */
export const countSentences = (text: string): number => punktSentences(text).length;
