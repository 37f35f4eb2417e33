// custom:* — fixed tasks with fixed answers' shapes: multiples of 7, multiple-choice questions, Africa's countries
// in reverse order, reversed sentences, a 26-sentence alphabet story, Europe's northern capitals, three CSV tables and
// Napoleon's battle dates. Each `build_description(**kwargs)` takes any arguments and reads none.
import { InstructionError } from "../../instructions/instruction.ts";
import { splitIntoSentences } from "../../instructions/text.ts";
import { pythonCsvReader, stringIoLines } from "../../../python/csv.ts";
import { pythonInt } from "../../../python/numbers.ts";
import { compilePythonRegex } from "../../../python/re/index.ts";
import { codePoints, compareStrings, pythonLen, pythonLower, pythonLstrip, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { anyKwargs } from "../instruction.ts";
import { asciiFold, firstChar, removePunctuation, stripPunctuation } from "../text.ts";

const DIGIT_RUN = compilePythonRegex("\\d+");
const MULTIPLES_OF_7 = ["14", "21", "28", "35", "42", "49"];

/** The digit runs are exactly 14 21 28 35 42 49 (PrintMultiplesChecker). */
export const multiples = anyKwargs((response) => {
  const found = DIGIT_RUN.findall<string>(response.replaceAll(",", ", "));
  return found.length === MULTIPLES_OF_7.length && found.every((number, i) => number === MULTIPLES_OF_7[i]);
});

const QUESTION_LABEL = compilePythonRegex("\\n*(?:Question \\d+[\\.|\\):;]?\\s*)");
const OPTION_LINE = compilePythonRegex("^[A-Ea-e][\\.|\\)]\\s*\\w+");

/**
 * Starts with "Question"; four "Question N" blocks, each with exactly five option lines ("A." … "E)") and question
 * texts (the lines before the first option) that get strictly longer (MultipleChoiceQuestionsChecker).
 */
export const mcqCountLength = anyKwargs((response) => {
  if (!response.startsWith("Question")) return false;
  let questions = QUESTION_LABEL.split<string>(response);
  if (questions[0] === "") questions = questions.slice(1);
  questions = questions.map((question) => pythonStrip(question)).filter((question) => question !== "");
  if (questions.length !== 4) return false;
  const lengths: number[] = [];
  for (const question of questions) {
    let text = "";
    let optionCount = 0;
    let inOptions = false;
    for (const line of question.split("\n")) {
      if (OPTION_LINE.match(pythonStrip(line)) !== undefined) {
        optionCount++;
        inOptions = true;
      } else if (!inOptions) text += ` ${pythonStrip(line)}`;
    }
    if (optionCount !== 5) return false;
    lengths.push(pythonLen(pythonStrip(text)));
  }
  return lengths.every((length, i) => i === 0 || lengths[i - 1]! < length);
});

/**
 * From the first line containing "Zimbabwe" on, at least 52 non-empty lines (punctuation stripped) in reverse
 * alphabetical order once accents and other non-ASCII characters are dropped (ReverseNewlineChecker).
 */
export const reverseNewline = anyKwargs((response) => {
  const lines = response
    .split("\n")
    .map(stripPunctuation)
    .filter((line) => line !== "");
  const start = lines.findIndex((line) => line.includes("Zimbabwe"));
  if (start === -1) return false;
  const target = lines.slice(start).map(asciiFold);
  if (target.length < 52) return false;
  return target.every((line, i) => i === 0 || compareStrings(target[i - 1]!, line) >= 0);
});

/** Read backwards word by word (lower-cased, punctuation removed) it contains "bald eagle" (WordReverseOrderChecker). */
export const wordReverse = anyKwargs((response) => {
  const words = splitWhitespace(removePunctuation(pythonStrip(pythonLower(response))));
  const text = words.reverse().join(" ");
  if (!text.includes("bald eagle")) return false;
  return splitIntoSentences(text).includes(text);
});

/** "bald eagle" spelt backwards appears, case-insensitively (CharacterReverseOrderChecker). */
export const characterReverse = anyKwargs((response) => pythonLower(response).includes("elgae dlab"));

/** Exactly 26 sentences whose first words start with a, b, c, … z in turn, case-insensitively (SentenceAlphabetChecker). */
export const sentenceAlphabet = anyKwargs((response) => {
  const sentences = splitIntoSentences(response);
  if (sentences.length !== 26) return false;
  return sentences.every((sentence, i) => {
    const first = splitWhitespace(pythonLstrip(sentence))[0];
    if (first === undefined) throw new InstructionError("list index out of range");
    return firstChar(pythonLower(first)) === String.fromCharCode(97 + i);
  });
});

const NORTHERN_CAPITALS = [
  "Reykjavik", "Helsinki", "Oslo", "Tallinn", "Stockholm", "Riga", "Moscow", "Copenhagen", "Vilnius", "Minsk", "Dublin", "Berlin", "Amsterdam",
  "Warsaw", "London", "Brussels", "Prague", "Luxembourg", "Paris", "Vienna", "Bratislava", "Budapest", "Vaduz", "Chisinau", "Bern", "Ljubljana", "Zagreb",
];

/** Exactly the 27 listed capitals, comma-separated, in this order (accents dropped) (EuropeanCapitalsSortChecker). */
export const europeanCapitalsSort = anyKwargs((response) => {
  const capitals = asciiFold(response)
    .split(",")
    .filter((capital) => pythonStrip(capital) !== "");
  return capitals.length === NORTHERN_CAPITALS.length && capitals.every((capital, i) => pythonStrip(capital) === NORTHERN_CAPITALS[i]);
});

/** `list(csv.reader(io.StringIO(text), delimiter=…))`. */
const csvRows = (text: string, delimiter = ",") => pythonCsvReader(stringIoLines(text), { delimiter });
const sameRow = (row: readonly string[], expected: readonly string[]) => row.length === expected.length && row.every((field, i) => field === expected[i]);

/** The header ID,Country,City,Year,Count and seven rows of five fields (CityCSVChecker). */
export const csvCity = anyKwargs((response) => {
  const rows = csvRows(response);
  if (rows.length !== 8) return false;
  if (!sameRow(rows[0]!, ["ID", "Country", "City", "Year", "Count"])) return false;
  return rows.slice(1).every((row) => row.length === 5);
});

const PRODUCT_HEADER = compilePythonRegex('^(ProductID|"ProductID"),[ \\t]*(Category|"Category"),[ \\t]*(Brand|"Brand"),[ \\t]*(Price|"Price"),[ \\t]*(Stock|"Stock")$');
const QUOTED_SPECIAL = compilePythonRegex('".*[^\\d\\w\\s].*"');

/**
 * The product header, 14 rows, and a double-quoted field with a special character (SpecialCharacterCSVChecker). The
 * library triples every quote before parsing, so quotes survive into the fields; it answers true at the first row
 * with such a field (rows after it are not checked) and false at the first row without five fields before it.
 */
export const csvSpecialCharacter = anyKwargs((response) => {
  if (PRODUCT_HEADER.match(pythonStrip(response.split("\n")[0]!)) === undefined) return false;
  const rows = csvRows(response.replaceAll('"', '"""'));
  if (rows.length !== 15) return false;
  for (const row of rows.slice(1)) {
    if (row.length !== 5) return false;
    if (row.some((field) => QUOTED_SPECIAL.match(field) !== undefined)) return true;
  }
  return false;
});

const STUDENT_HEADER = compilePythonRegex('^(StudentID|"StudentID")\\t *(Subject|"Subject")\\t *(Grade|"Grade")\\t *(Semester|"Semester")\\t *(Score|"Score")$');

/** The tab-separated student header and 3 rows, every field in double quotes (QuotesCSVChecker). */
export const csvQuotes = anyKwargs((response) => {
  if (STUDENT_HEADER.match(pythonStrip(response.split("\n")[0]!)) === undefined) return false;
  const rows = csvRows(response.replaceAll('"', '"""'), "\t");
  if (rows.length !== 4) return false;
  return rows.every(
    (row) =>
      row.length === 5 &&
      row.every((field) => {
        const chars = codePoints(pythonStrip(field));
        if (chars.length === 0) throw new InstructionError("string index out of range");
        return chars[0] === '"' && chars.at(-1) === '"';
      }),
  );
});

const ISO_DATE = compilePythonRegex("^\\d{4}-\\d{2}-\\d{2}$");
const DAYS_IN_MONTH: Record<number, number> = { 1: 31, 3: 31, 5: 31, 7: 31, 8: 31, 10: 31, 12: 31, 4: 30, 6: 30, 9: 30, 11: 30, 2: 29 };

/**
 * Comma-separated YYYY-MM-DD dates, years 1769–1821, months up to 12, days within the month's length (February 29)
 * (DateFormatListChecker). Month and day 0 pass, as in the library.
 */
export const dateFormatList = anyKwargs((response) =>
  pythonStrip(response)
    .split(",")
    .every((piece) => {
      const date = pythonStrip(piece);
      if (ISO_DATE.match(date) === undefined) return false;
      const [year, month, day] = date.split("-").map(pythonInt) as [number, number, number];
      if (year < 1769 || year > 1821 || month > 12) return false;
      return !(month in DAYS_IN_MONTH) || day <= DAYS_IN_MONTH[month]!;
    }),
);
