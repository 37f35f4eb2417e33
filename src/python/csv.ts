// Python's csv.reader with the default (excel) dialect: CPython's parser state machine, non-strict — a quote inside
// an unquoted field is kept, text after a closing quote joins the field, a blank line is an empty row, and a quoted
// field open at the end of the data ends there. The reader sees the text line by line, as the file object it reads
// gives the lines: with universal newlines (`io.TextIOWrapper`, `open()`; NeMo Gym's mmlu prepare.py) every `\r\n`
// and `\r` has become `\n`; from an `io.StringIO` (NeMo Gym's imo_gradingbench prepare.py) lines end at `\n` only
// and a `\r` reaches the parser: a line end outside quotes, kept inside them, and an error before more text.

/** csv.Error. */
export class PythonCsvError extends Error {
  override readonly name = "Error";
}

type State = "startRecord" | "startField" | "inField" | "inQuoted" | "quoteInQuoted" | "eatCrnl";

/** The records CPython's reader returns for these lines (each with its line terminator, if any). */
function readRecords(lines: readonly string[]): string[][] {
  const rows: string[][] = [];
  let fields: string[] = [];
  let field = "";
  let state: State = "startRecord";
  const saveField = () => {
    fields.push(field);
    field = "";
  };
  const add = (c: string) => {
    field += c;
  };
  const isNewline = (c: string) => c === "\n" || c === "\r";
  // `null` is CPython's EOL marker: the end of one line of input.
  const step = (c: string | null) => {
    switch (state) {
      case "startRecord":
        if (c === null) return;
        if (isNewline(c)) {
          state = "eatCrnl";
          return;
        }
        state = "startField";
      // fall through: the first character of a record starts its first field
      case "startField":
        if (c === null || isNewline(c)) (saveField(), (state = c === null ? "startRecord" : "eatCrnl"));
        else if (c === '"') state = "inQuoted";
        else if (c === ",") saveField();
        else (add(c), (state = "inField"));
        return;
      case "inField":
        if (c === null || isNewline(c)) (saveField(), (state = c === null ? "startRecord" : "eatCrnl"));
        else if (c === ",") (saveField(), (state = "startField"));
        else add(c);
        return;
      case "inQuoted":
        if (c === null) return;
        if (c === '"') state = "quoteInQuoted";
        else add(c);
        return;
      case "quoteInQuoted":
        if (c === '"') (add(c), (state = "inQuoted"));
        else if (c === ",") (saveField(), (state = "startField"));
        else if (c === null || isNewline(c)) (saveField(), (state = c === null ? "startRecord" : "eatCrnl"));
        else (add(c), (state = "inField"));
        return;
      case "eatCrnl":
        if (c === null) state = "startRecord";
        else if (!isNewline(c)) throw new PythonCsvError("new-line character seen in unquoted field - do you need to open the file in universal-newline mode?");
        return;
    }
  };
  for (const line of lines) {
    for (const c of line) step(c);
    step(null);
    if ((state as State) === "startRecord") {
      rows.push(fields);
      fields = [];
    }
  }
  // The data ended inside a quoted field (only there can a record be open after a line's end): non-strict, it ends there.
  if ((state as State) === "inQuoted") {
    saveField();
    rows.push(fields);
  }
  return rows;
}

/** The lines a file object yields: each up to and including its `\n` (the last one may have none). */
function linesEndingAtNewline(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === "" ? [] : lines;
}

/** `list(csv.reader(io.TextIOWrapper(f, encoding=…)))`: universal newlines first. */
export function pythonCsvRows(text: string): string[][] {
  return readRecords(linesEndingAtNewline(text.replace(/\r\n?/g, "\n")));
}

/** `list(csv.reader(io.StringIO(text)))`: `\r` reaches the parser. Throws {@link PythonCsvError} where Python raises csv.Error. */
export function pythonCsvRowsFromString(text: string): string[][] {
  return readRecords(linesEndingAtNewline(text));
}

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
