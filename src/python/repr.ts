// Python's `repr()` of the two text types, shared by every value model and by exception reprs: a str as the
// interpreter prints it (quote choice, `\\ \n \r \t`, `\xhh` / `\uhhhh` / `\Uhhhhhhhh` for what is not printable)
// and bytes as `b'…'` (printable ASCII kept, every other byte `\xhh`).

// What Python's repr() escapes: every character str.isprintable() rejects (controls, format characters,
// surrogates, private use, unassigned, and every separator but the space).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Single quotes unless the text holds `'` and no `"` (then double quotes, and `'` stays unescaped). */
const quoteFor = (hasSingle: boolean, hasDouble: boolean): string => (hasSingle && !hasDouble ? '"' : "'");

/** `repr(text)` of a str. */
export function pythonStringRepr(text: string): string {
  const quote = quoteFor(text.includes("'"), text.includes('"'));
  let body = "";
  for (const ch of text) {
    if (ch === quote) body += `\\${ch}`;
    else if (SIMPLE_ESCAPES[ch] !== undefined) body += SIMPLE_ESCAPES[ch];
    else if (ch !== " " && NON_PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!;
      body += code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : code < 0x10000 ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
    } else body += ch;
  }
  return quote + body + quote;
}

/** `repr(data)` of bytes; a JS string stands for its UTF-8 encoding (NeMo Gym embeds response bodies so). */
export function pythonBytesRepr(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const quote = quoteFor(bytes.includes(0x27), bytes.includes(0x22));
  let out = "";
  for (const byte of bytes) {
    if (byte === 0x5c) out += "\\\\";
    else if (byte === 0x0a) out += "\\n";
    else if (byte === 0x0d) out += "\\r";
    else if (byte === 0x09) out += "\\t";
    else if (byte === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `b${quote}${out}${quote}`;
}

const LITERAL_ESCAPES: Record<string, number> = { "\\": 0x5c, "'": 0x27, '"': 0x22, n: 0x0a, r: 0x0d, t: 0x09, a: 0x07, b: 0x08, f: 0x0c, v: 0x0b, "0": 0x00 };

/**
 * The text of a `b'…'` / `b"…"` literal as `repr(bytes)` prints it (UTF-8 decoded), or undefined when `literal` is
 * not one. A literal cut short (no closing quote: a truncated body) decodes as far as it goes.
 */
export function decodePythonBytesRepr(literal: string): string | undefined {
  const match = /^b(['"])/.exec(literal);
  if (!match) return undefined;
  const quote = match[1]!;
  const bytes: number[] = [];
  for (let i = 2; i < literal.length; i++) {
    const ch = literal[i]!;
    if (ch === quote) break;
    if (ch !== "\\") {
      // repr(bytes) is ASCII; anything else was added around it, and is kept as its UTF-8.
      bytes.push(...new TextEncoder().encode(ch));
      continue;
    }
    const next = literal[i + 1];
    if (next === "x" && /^[0-9a-fA-F]{2}$/.test(literal.slice(i + 2, i + 4))) {
      bytes.push(parseInt(literal.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (next !== undefined && LITERAL_ESCAPES[next] !== undefined) {
      bytes.push(LITERAL_ESCAPES[next]!);
      i += 1;
    } else bytes.push(0x5c);
  }
  return new TextDecoder("utf-8").decode(Uint8Array.from(bytes));
}
