// PyYAML's text for the two scanner errors model answers hit most — a token starting with a reserved indicator
// (a ```yaml fence, `@`) and a second `: ` inside a plain value (`title: A: B`) — found by a light line scan of
// block-style YAML. Used only once the YAML parser has already rejected the text; anything the scan cannot follow
// (flow collections over several lines, multi-line quoted scalars, tabs) keeps the parser's own message.
import { codePoints } from "../../python/str.ts";

export interface PyYamlScannerError {
  name: "ScannerError";
  message: string;
}

/** PyYAML's Mark: `  in "<unicode string>", line L, column C:` and the line with a caret. */
function mark(lines: string[], lineIndex: number, column: number): string {
  const line = codePoints(lines[lineIndex]!);
  const maxHalf = 75 / 2 - 1;
  let head = "";
  let start = column;
  while (start > 0) {
    start--;
    if (column - start > maxHalf) {
      head = " ... ";
      start += 5;
      break;
    }
  }
  let tail = "";
  let end = column;
  while (end < line.length) {
    end++;
    if (end - column > maxHalf) {
      tail = " ... ";
      end -= 5;
      break;
    }
  }
  const snippet = `    ${head}${line.slice(start, end).join("")}${tail}\n${" ".repeat(4 + column - start + head.length)}^`;
  return `  in "<unicode string>", line ${lineIndex + 1}, column ${column + 1}:\n${snippet}`;
}

const reserved = (lines: string[], lineIndex: number, column: number): PyYamlScannerError => ({
  name: "ScannerError",
  message: `while scanning for the next token\nfound character '${codePoints(lines[lineIndex]!)[column]}' that cannot start any token\n${mark(lines, lineIndex, column)}`,
});
const mappingValue = (lines: string[], lineIndex: number, column: number): PyYamlScannerError => ({
  name: "ScannerError",
  message: `mapping values are not allowed here\n${mark(lines, lineIndex, column)}`,
});

/** The index of a `:` that ends a plain scalar (followed by a space or the line end), before any ` #` comment. */
function valueIndicator(chars: string[], from: number): number {
  for (let i = from; i < chars.length; i++) {
    if (chars[i] === "#" && i > 0 && (chars[i - 1] === " " || chars[i - 1] === "\t")) return -1;
    if (chars[i] === ":" && (i + 1 === chars.length || chars[i + 1] === " " || chars[i + 1] === "\t")) return i;
  }
  return -1;
}

/** The end (exclusive) of a quoted scalar starting at `from` on this line, or -1 when it runs past the line. */
function quotedEnd(chars: string[], from: number): number {
  const quote = chars[from]!;
  for (let i = from + 1; i < chars.length; i++) {
    if (quote === '"' && chars[i] === "\\") i++;
    else if (chars[i] === quote) {
      if (quote === "'" && chars[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return -1;
}

/** PyYAML's scanner error for the text, when the light scan finds one of the two; undefined otherwise. */
export function pyYamlScannerError(text: string): PyYamlScannerError | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  // Column of the mapping key whose plain value may continue on more-indented lines; -1 when none.
  let plainParent = -1;
  let blockScalarIndent = -1;
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const chars = codePoints(lines[lineIndex]!);
    let pos = 0;
    while (chars[pos] === " ") pos++;
    if (chars[pos] === "\t") return undefined;
    if (pos === chars.length || chars[pos] === "#") continue;
    if (blockScalarIndent >= 0) {
      if (pos > blockScalarIndent) continue;
      blockScalarIndent = -1;
    }
    if (plainParent >= 0 && pos > plainParent) {
      const colon = valueIndicator(chars, pos);
      if (colon >= 0) return mappingValue(lines, lineIndex, colon);
      continue;
    }
    plainParent = -1;
    if (lineIndex === 0 && chars.slice(0, 3).join("") === "---") return undefined;
    while (chars[pos] === "-" && (chars[pos + 1] === " " || pos + 1 === chars.length)) {
      pos++;
      while (chars[pos] === " ") pos++;
    }
    if (pos === chars.length) continue;
    const keyColumn = pos;
    let ch = chars[pos]!;
    if (ch === "`" || ch === "@") return reserved(lines, lineIndex, pos);
    if ("[{|>&*!%".includes(ch)) return undefined;
    let valueStart: number;
    if (ch === '"' || ch === "'") {
      const end = quotedEnd(chars, pos);
      if (end < 0) return undefined;
      let after = end;
      while (chars[after] === " ") after++;
      if (chars[after] !== ":") continue;
      valueStart = after + 1;
    } else {
      const colon = valueIndicator(chars, pos);
      if (colon < 0) {
        plainParent = keyColumn - 1;
        continue;
      }
      valueStart = colon + 1;
    }
    while (chars[valueStart] === " ") valueStart++;
    if (valueStart >= chars.length || chars[valueStart] === "#") continue;
    ch = chars[valueStart]!;
    if (ch === "`" || ch === "@") return reserved(lines, lineIndex, valueStart);
    if (ch === "|" || ch === ">") {
      blockScalarIndent = keyColumn;
      continue;
    }
    if (ch === "[" || ch === "{") {
      const close = ch === "[" ? "]" : "}";
      if (chars.lastIndexOf(close) < valueStart) return undefined;
      continue;
    }
    if (ch === "&" || ch === "*" || ch === "!") return undefined;
    if (ch === '"' || ch === "'") {
      const end = quotedEnd(chars, valueStart);
      if (end < 0) return undefined;
      let after = end;
      while (chars[after] === " ") after++;
      if (chars[after] === ":") return mappingValue(lines, lineIndex, after);
      continue;
    }
    const colon = valueIndicator(chars, valueStart);
    if (colon >= 0) return mappingValue(lines, lineIndex, colon);
    plainParent = keyColumn;
  }
  return undefined;
}
