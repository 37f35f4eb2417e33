// Python's `codecs.decode(text, "unicode_escape")` on a str: the text is encoded as UTF-8 and each byte read
// back as Latin-1 (so "é" becomes "Ã©"), while backslash escapes (`\n`, `\"`, `\x41`, `\u00e9`, `\101`, …)
// are decoded. StructEval runs every answer through it.
import { PyException } from "../../python/exception.ts";
import { readEscape } from "../../python/escapes.ts";

/** The UnicodeDecodeError the codec raises. */
export class UnicodeEscapeError extends PyException {
  constructor(message: string) {
    super("UnicodeDecodeError", message);
  }
}

/** Throws {@link UnicodeEscapeError} where Python raises (a trailing `\`, a short `\x`, `\N{…}`, …). */
export function decodeUnicodeEscape(text: string): string {
  if (/[\uD800-\uDFFF]/u.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) throw new UnicodeEscapeError("surrogates not allowed");
  // Each UTF-8 byte as the Latin-1 character of the same value.
  const bytes = Buffer.from(text, "utf8").toString("latin1");
  const fail = (reason: string): never => {
    throw new UnicodeEscapeError(reason);
  };
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const next = bytes.indexOf("\\", i);
    if (next < 0) return out + bytes.slice(i);
    out += bytes.slice(i, next);
    const { value, length } = readEscape(bytes, next, fail);
    out += value;
    i = next + length;
  }
  return out;
}
