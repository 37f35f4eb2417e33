// The text operations IFBench's checkers are built from, with Python's meaning: `string.punctuation` removed
// (`str.translate`) or stripped, NLTK's English stop words, `emoji.is_emoji` on one character, and the test for
// Japanese script. Sentence splitting, word counting and word_tokenize are IFEval's (src/ports/instructions).
import { codePoints, pythonLower, pythonStrip } from "../../python/str.ts";

/** Python's `string.punctuation`: the 32 ASCII punctuation characters. */
export const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
/** `''.join(string.punctuation) + ' '`, what the checkers strip from words. */
export const PUNCTUATION_AND_SPACE = `${PUNCTUATION} `;

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** `text.translate(str.maketrans('', '', string.punctuation))`. */
export const removePunctuation = (text: string): string => text.replace(ASCII_PUNCTUATION, "");

/** `text.strip(''.join(string.punctuation) + ' ')`. */
export const stripPunctuation = (text: string): string => pythonStrip(text, PUNCTUATION_AND_SPACE);

/** The first character (code point) of a non-empty string: Python's `text[0]`. */
export const firstChar = (text: string): string => String.fromCodePoint(text.codePointAt(0)!);

/** The last character of a non-empty string: Python's `text[-1]`. */
export const lastChar = (text: string): string => codePoints(text).at(-1)!;

// NLTK's English stop-word list (corpora/stopwords/english) less its entries with an apostrophe ("don't",
// "you're", …): count_stopwords looks up tokens of RegexpTokenizer(r"\w+"), which never contain one, so only these
// can match. Every release of the list (179 words, 198 since 2024) has the same apostrophe-free entries.
const ENGLISH_STOPWORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself " +
    "they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having " +
    "do does did doing a an the and but if or because as until while of at by for with about against between into through during before " +
    "after above below to from up down in out on off over under again further then once here there when where why how all any both each " +
    "few more most other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y ain aren " +
    "couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/** `token.lower() in nltk.corpus.stopwords.words('english')`. */
export const isStopword = (token: string): boolean => ENGLISH_STOPWORDS.has(pythonLower(token));

// `emoji.is_emoji(char)` is membership in the emoji package's EMOJI_DATA. Its single-character keys are the
// characters with Unicode's Emoji property, except the keycap bases (#, *, 0–9) and the regional indicators, which
// are emoji only in sequences; plus Emoji 17.0's additions, which this Node's property tables may predate.
const EMOJI_PROPERTY = /^\p{Emoji}$/u;
const EMOJI_ONLY_IN_SEQUENCES = /^[#*0-9\u{1F1E6}-\u{1F1FF}]$/u;
const EMOJI_17 = new Set([0x1f6d9, 0x1fa8b, 0x1fa8c, 0x1fa8d, 0x1facc, 0x1fadd, 0x1faeb, 0x1faf9, 0x1fafa]);

/** `emoji.is_emoji(char)` for one character. */
export const isEmojiChar = (char: string): boolean =>
  (EMOJI_PROPERTY.test(char) && !EMOJI_ONLY_IN_SEQUENCES.test(char)) || EMOJI_17.has(char.codePointAt(0)!);

/** NthWordJapaneseChecker's `is_japanese`: any Hiragana, Katakana or CJK unified ideograph. */
export const hasJapanese = (text: string): boolean => /[\u3040-\u30ff\u4e00-\u9fff]/.test(text);

/** `unicodedata.normalize('NFKD', text).encode('ASCII', 'ignore').decode('ASCII')`: accents dropped, then all non-ASCII. */
export const asciiFold = (text: string): string => text.normalize("NFKD").replace(/[^\x00-\x7f]/gu, "");
