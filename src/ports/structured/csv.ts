// CSV as `csv.DictReader(io.StringIO(text))` reads it with the default (excel) dialect: CPython's _csv state
// machine fed line by line (StringIO splits after each "\n" only), strict off, so a stray character after a
// closing quote joins the field and an unterminated quoted field ends the last record instead of failing.
import { type StructuredDict, type StructuredValue } from "./value.ts";
import { PyException } from "../../python/exception.ts";

const FIELD_SIZE_LIMIT = 131072;
const EOL = -1;

type State = "start_record" | "start_field" | "in_field" | "in_quoted_field" | "quote_in_quoted_field" | "eat_crnl";

/** Lines as `io.StringIO(text)` yields them: split after every "\n", the last one possibly without it. */
function stringIoLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** `list(csv.reader(io.StringIO(text)))`: every record, an empty line being `[]`. */
export function readCsvRecords(text: string): string[][] {
  const lines = stringIoLines(text);
  const records: string[][] = [];
  let lineIndex = 0;
  let state: State = "start_record";
  let fields: string[] = [];
  let field = "";
  let fieldLength = 0;

  const addChar = (ch: string) => {
    if (fieldLength >= FIELD_SIZE_LIMIT) throw new PyException("Error", `field larger than field limit (${FIELD_SIZE_LIMIT})`);
    field += ch;
    fieldLength++;
  };
  const saveField = () => {
    fields.push(field);
    field = "";
    fieldLength = 0;
  };

  const processChar = (c: string | typeof EOL) => {
    const lineBreak = c === "\n" || c === "\r";
    switch (state) {
      case "start_record":
        if (c === EOL) return;
        if (lineBreak) {
          state = "eat_crnl";
          return;
        }
        state = "start_field";
      // falls through
      case "start_field":
        if (lineBreak || c === EOL) {
          saveField();
          state = c === EOL ? "start_record" : "eat_crnl";
        } else if (c === '"') state = "in_quoted_field";
        else if (c === ",") saveField();
        else {
          addChar(c);
          state = "in_field";
        }
        return;
      case "in_field":
        if (lineBreak || c === EOL) {
          saveField();
          state = c === EOL ? "start_record" : "eat_crnl";
        } else if (c === ",") {
          saveField();
          state = "start_field";
        } else addChar(c);
        return;
      case "in_quoted_field":
        if (c === EOL) return;
        if (c === '"') state = "quote_in_quoted_field";
        else addChar(c);
        return;
      case "quote_in_quoted_field":
        if (c === '"') {
          addChar(c);
          state = "in_quoted_field";
        } else if (c === ",") {
          saveField();
          state = "start_field";
        } else if (lineBreak || c === EOL) {
          saveField();
          state = c === EOL ? "start_record" : "eat_crnl";
        } else {
          addChar(c);
          state = "in_field";
        }
        return;
      case "eat_crnl":
        if (lineBreak) return;
        if (c === EOL) {
          state = "start_record";
          return;
        }
        throw new PyException("Error", "new-line character seen in unquoted field - do you need to open the file with newline=''?");
    }
  };

  for (;;) {
    // One record: lines are fed until the state machine is back at the start of a record.
    fields = [];
    state = "start_record";
    let ended = false;
    do {
      if (lineIndex >= lines.length) {
        if (fieldLength !== 0 || (state as State) === "in_quoted_field") {
          saveField();
          records.push(fields);
        }
        ended = true;
        break;
      }
      for (const ch of lines[lineIndex++]!) processChar(ch);
      processChar(EOL);
    } while (state !== "start_record");
    if (ended) return records;
    records.push(fields);
  }
}

export interface DictReaderResult {
  /** `reader.fieldnames`: the first record, or None for an empty text. */
  fieldnames: string[] | null;
  /** `list(reader)`: blank lines skipped, a missing field None, surplus fields a list under the key None. */
  rows: StructuredDict[];
}

export function readCsvDicts(text: string): DictReaderResult {
  const records = readCsvRecords(text);
  if (records.length === 0) return { fieldnames: null, rows: [] };
  const [fieldnames, ...rest] = records as [string[], ...string[][]];
  const rows = rest
    .filter((record) => record.length > 0)
    .map((record) => {
      const row: StructuredDict = new Map();
      fieldnames.forEach((name, i) => {
        if (i < record.length) row.set(name, record[i]!);
      });
      if (record.length > fieldnames.length) row.set(null, record.slice(fieldnames.length) as StructuredValue[]);
      else for (const name of fieldnames.slice(record.length)) row.set(name, null);
      return row;
    });
  return { fieldnames, rows };
}
