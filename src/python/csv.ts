// Python's csv module with the default (excel) dialect: CPython's (3.11+) parser state machine, non-strict — a quote
// inside an unquoted field is kept, text after a closing quote joins the field, a blank line is an empty row, and a
// quoted field open at the end of the data ends there. The reader sees the text line by line, as the file object it
// reads gives the lines: with universal newlines (`io.TextIOWrapper`, `open()`; NeMo Gym's mmlu prepare.py) every
// `\r\n` and `\r` has become `\n`; from an `io.StringIO` (imo_gradingbench's prepare.py, IFBench's checkers,
// structured outputs) lines end at `\n` only and a `\r` reaches the parser: a line end outside quotes, kept inside
// them, and an error before more text on its line.

/** The dialect knobs `csv.reader` is called with here; the rest are excel's (no escapechar, doublequote, not strict). */
export interface CsvDialect {
  delimiter?: string;
}

/** `csv.Error`: a record the reader refuses (a stray carriage return, a field past the size limit). */
export class CsvError extends Error {
  override name = "csv.Error";
}

// csv.field_size_limit()'s default.
const FIELD_SIZE_LIMIT = 128 * 1024;

/** The lines `io.StringIO(text)` yields: split after each `\n` (kept), no newline translation, so `\r` stays. */
export function stringIoLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", start)) {
    lines.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * `list(csv.reader(lines, delimiter=…))` with CPython's (3.11+) parser, strict off: each line is fed character by
 * character and then an end-of-line mark; a record goes on over the next line while a quoted field is open. A blank
 * line is an empty row; a `\r` or `\n` that ends an unquoted field must be followed by nothing but line ends up to
 * the line's end (else csv.Error, "new-line character seen in unquoted field"), and an open quoted field at the end
 * of the input ends there. Throws {@link CsvError} where Python raises csv.Error.
 */
export function pythonCsvReader(lines: Iterable<string>, dialect: CsvDialect = {}): string[][] {
  const delimiter = dialect.delimiter ?? ",";
  const rows: string[][] = [];
  const EOL = Symbol("EOL");
  type State = "startRecord" | "startField" | "inField" | "inQuoted" | "quoteInQuoted" | "eatCrnl";
  let state: State = "startRecord";
  let fields: string[] = [];
  let field = "";
  let fieldLength = 0;
  const addChar = (c: string) => {
    if (fieldLength >= FIELD_SIZE_LIMIT) throw new CsvError(`field larger than field limit (${FIELD_SIZE_LIMIT})`);
    field += c;
    fieldLength++;
  };
  const saveField = () => {
    fields.push(field);
    field = "";
    fieldLength = 0;
  };
  const endOfField = (c: string | typeof EOL) => {
    saveField();
    state = c === EOL ? "startRecord" : "eatCrnl";
  };
  const lineEnd = (c: string | typeof EOL) => c === "\n" || c === "\r" || c === EOL;
  const process = (c: string | typeof EOL) => {
    switch (state) {
      case "startRecord":
        if (c === EOL) return;
        if (c === "\n" || c === "\r") {
          state = "eatCrnl";
          return;
        }
        state = "startField";
      // fall through: a normal character starts the first field
      case "startField":
        if (lineEnd(c)) endOfField(c);
        else if (c === '"') state = "inQuoted";
        else if (c === delimiter) saveField();
        else (addChar(c as string), (state = "inField"));
        return;
      case "inField":
        if (lineEnd(c)) endOfField(c);
        else if (c === delimiter) (saveField(), (state = "startField"));
        else addChar(c as string);
        return;
      case "inQuoted":
        if (c === EOL) return;
        if (c === '"') state = "quoteInQuoted";
        else addChar(c);
        return;
      case "quoteInQuoted":
        if (c === '"') (addChar(c), (state = "inQuoted"));
        else if (c === delimiter) (saveField(), (state = "startField"));
        else if (lineEnd(c)) endOfField(c);
        else (addChar(c as string), (state = "inField"));
        return;
      case "eatCrnl":
        if (c === "\n" || c === "\r") return;
        if (c === EOL) state = "startRecord";
        else throw new CsvError("new-line character seen in unquoted field - do you need to open the file with newline=''?");
        return;
    }
  };
  const iterator = lines[Symbol.iterator]();
  for (;;) {
    // One record: lines until the parser is back at the start of a record.
    fields = [];
    field = "";
    fieldLength = 0;
    state = "startRecord";
    let ended = false;
    do {
      const next = iterator.next();
      if (next.done) {
        if (fieldLength !== 0 || (state as State) === "inQuoted") {
          saveField();
          break;
        }
        ended = true;
        break;
      }
      for (const c of next.value) process(c);
      process(EOL);
    } while ((state as State) !== "startRecord");
    if (ended) return rows;
    rows.push(fields);
  }
}

/** `list(csv.reader(io.TextIOWrapper(f, encoding=…)))`: universal newlines first. */
export const pythonCsvRows = (text: string): string[][] => pythonCsvReader(stringIoLines(text.replace(/\r\n?/g, "\n")));

/** `list(csv.reader(io.StringIO(text)))`: `\r` reaches the parser. Throws {@link CsvError} where Python raises csv.Error. */
export const pythonCsvRowsFromString = (text: string): string[][] => pythonCsvReader(stringIoLines(text));

/**
 * `list(csv.DictReader(f))` over those rows: the first row names the columns (even an empty one); an empty row is skipped; a
 * short row's missing columns are None, a long row's surplus cells a list under the key None (here `"null"`, the
 * JSON spelling: no benchmark reads it).
 */
export function pythonCsvDictRows(rows: readonly string[][]): Record<string, string | null | string[]>[] {
  const header = rows[0];
  if (header === undefined) return [];
  return rows.slice(1).filter((row) => row.length > 0).map((row) => {
    const record: Record<string, string | null | string[]> = {};
    header.forEach((name, i) => Object.defineProperty(record, name, { value: i < row.length ? row[i]! : null, enumerable: true, writable: true, configurable: true }));
    if (row.length > header.length) record.null = row.slice(header.length);
    return record;
  });
}
