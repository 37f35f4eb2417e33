// Python's `csv.reader(io.TextIOWrapper(f, encoding=…))` with the default (excel) dialect: universal newlines
// first (\r\n and \r read as \n), then CPython's parser state machine, non-strict — a quote inside an unquoted
// field is kept, text after a closing quote joins the field, a blank line is an empty row, and a quoted field
// open at the end of the data ends there. NeMo Gym's mmlu prepare.py reads the benchmark's CSV files this way.
export function pythonCsvRows(text: string): string[][] {
  const input = text.replace(/\r\n?/g, "\n");
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let state: "startRecord" | "startField" | "inField" | "inQuoted" | "quoteInQuoted" = "startRecord";
  const endField = () => {
    row.push(field);
    field = "";
  };
  const endRecord = () => {
    rows.push(row);
    row = [];
    state = "startRecord";
  };
  for (const c of input) {
    switch (state) {
      case "startRecord":
        if (c === "\n") {
          endRecord();
          break;
        }
      // fall through: the first character of a record starts its first field
      case "startField":
        if (c === "\n") (endField(), endRecord());
        else if (c === '"') state = "inQuoted";
        else if (c === ",") (endField(), (state = "startField"));
        else (field += c), (state = "inField");
        break;
      case "inField":
        if (c === "\n") (endField(), endRecord());
        else if (c === ",") (endField(), (state = "startField"));
        else field += c;
        break;
      case "inQuoted":
        if (c === '"') state = "quoteInQuoted";
        else field += c;
        break;
      case "quoteInQuoted":
        if (c === '"') (field += c), (state = "inQuoted");
        else if (c === ",") (endField(), (state = "startField"));
        else if (c === "\n") (endField(), endRecord());
        else (field += c), (state = "inField");
        break;
    }
  }
  if (state !== "startRecord") (endField(), endRecord());
  return rows;
}
