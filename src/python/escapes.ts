// Python's backslash escapes, as a str literal reads them and as the `unicode_escape` codec decodes them (the
// codec reads exactly the literal's escapes): `\\ \' \" \a \b \f \n \r \t \v`, a backslash-newline that
// vanishes, one to three octal digits, `\xhh`, `\uhhhh`, `\Uhhhhhhhh`. `\N{name}` needs Unicode's name table
// and is refused; any other escape is kept as written, backslash included.

const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\n": "" };
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };
const isOctal = (ch: string | undefined) => ch !== undefined && ch >= "0" && ch <= "7";

/**
 * The escape whose backslash is `text[at]`: what it decodes to and how many UTF-16 units it spans. A malformed
 * one (a lone trailing backslash, too few hex digits, past U+10FFFF, `\N`) calls `fail` with the reason.
 */
export function readEscape(text: string, at: number, fail: (reason: string) => never): { value: string; length: number } {
  const escape = text[at + 1];
  if (escape === undefined) return fail("\\ at end of string");
  if (escape in SIMPLE_ESCAPES) return { value: SIMPLE_ESCAPES[escape]!, length: 2 };
  if (isOctal(escape)) {
    let end = at + 2;
    while (end < at + 4 && isOctal(text[end])) end++;
    return { value: String.fromCodePoint(parseInt(text.slice(at + 1, end), 8)), length: end - at };
  }
  if (escape in HEX_DIGITS) {
    const count = HEX_DIGITS[escape]!;
    const digits = text.slice(at + 2, at + 2 + count);
    if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length < count) return fail(`truncated \\${escape}${"X".repeat(count)} escape`);
    const code = parseInt(digits, 16);
    if (code > 0x10ffff) return fail("illegal Unicode character");
    return { value: String.fromCodePoint(code), length: 2 + count };
  }
  if (escape === "N") return fail("unknown Unicode character name");
  return { value: "\\" + escape, length: 2 };
}
