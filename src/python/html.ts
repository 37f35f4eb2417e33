// Python's `html.unescape`: every `&…` character reference of HTML5 replaced, as Python 3.11 does it. Numeric
// references follow Python's own rules (C1 controls read as Windows-1252, surrogates and out-of-range numbers as
// U+FFFD, the other non-characters dropped); a named reference is the whole name when it is one of HTML5's, else
// its longest prefix that is a legacy name (`&notit;` is `¬it;`), else left as written. The names and their
// values are HTML5's table, from the `entities` package.
import { decodeHTML } from "entities";

// What Python reads a number as (`&#0;` is U+FFFD, `&#13;` a carriage return, 0x80–0x9f Windows-1252's letters).
const WINDOWS_1252: Record<number, string> = {
  0x00: "\ufffd", 0x0d: "\r",
  0x80: "\u20ac", 0x81: "\x81", 0x82: "\u201a", 0x83: "\u0192", 0x84: "\u201e", 0x85: "\u2026", 0x86: "\u2020", 0x87: "\u2021",
  0x88: "\u02c6", 0x89: "\u2030", 0x8a: "\u0160", 0x8b: "\u2039", 0x8c: "\u0152", 0x8d: "\x8d", 0x8e: "\u017d", 0x8f: "\x8f",
  0x90: "\x90", 0x91: "\u2018", 0x92: "\u2019", 0x93: "\u201c", 0x94: "\u201d", 0x95: "\u2022", 0x96: "\u2013", 0x97: "\u2014",
  0x98: "\u02dc", 0x99: "\u2122", 0x9a: "\u0161", 0x9b: "\u203a", 0x9c: "\u0153", 0x9d: "\x9d", 0x9e: "\u017e", 0x9f: "\u0178",
};

/** Code points a numeric reference to which Python drops: C0/C1 controls but tab, newlines and space, and non-characters. */
function isDroppedCodePoint(cp: number): boolean {
  if ((cp >= 0x1 && cp <= 0x8) || cp === 0xb || (cp >= 0xe && cp <= 0x1f) || (cp >= 0x7f && cp <= 0x9f)) return true;
  if (cp >= 0xfdd0 && cp <= 0xfdef) return true;
  return (cp & 0xfffe) === 0xfffe;
}

function numericReference(reference: string): string {
  const digits = reference.replace(/;$/, "");
  const value = /^#[xX]/.test(digits) ? BigInt(`0x${digits.slice(2)}`) : BigInt(digits.slice(1));
  if (value <= 0x9fn && Object.hasOwn(WINDOWS_1252, Number(value))) return WINDOWS_1252[Number(value)]!;
  if ((value >= 0xd800n && value <= 0xdfffn) || value > 0x10ffffn) return "\ufffd";
  const cp = Number(value);
  return isDroppedCodePoint(cp) ? "" : String.fromCodePoint(cp);
}

// Python's pattern: a number (decimal or hex) or up to 32 name characters, each with an optional `;`.
const CHARACTER_REFERENCE = /&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)/gu;

/** `html.unescape(text)`. */
export function htmlUnescape(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(CHARACTER_REFERENCE, (_whole, reference: string) =>
    reference.startsWith("#") ? numericReference(reference) : decodeHTML(`&${reference}`),
  );
}
