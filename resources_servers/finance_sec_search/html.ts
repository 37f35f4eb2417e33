// The text of an HTML page as NeMo Gym's finance_sec_search takes it with BeautifulSoup (html.parser): <script> and
// <style> elements dropped, every text node concatenated (get_text() with no separator), character references
// decoded; then each line stripped, split on double spaces, stripped again, and the non-empty pieces joined by "\n".
// No HTML parser is a dependency of this project; this is the simplest faithful approach (a tag scanner), and it
// differs from html.parser on malformed markup (unclosed comments, `<` inside attribute values) only.

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "\u00a9", reg: "\u00ae", mdash: "\u2014", ndash: "\u2013", rsquo: "\u2019", lsquo: "\u2018", rdquo: "\u201d", ldquo: "\u201c", hellip: "\u2026", bull: "\u2022", middot: "\u00b7", trade: "\u2122", sect: "\u00a7", para: "\u00b6", deg: "\u00b0", times: "\u00d7", divide: "\u00f7", cent: "\u00a2", pound: "\u00a3", euro: "\u20ac", yen: "\u00a5" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[A-Za-z]+);?/g, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = NAMED[body] ?? NAMED[body.toLowerCase()];
    return named ?? whole;
  });
}

/** BeautifulSoup(html).get_text() without <script>/<style>, comments, doctype. */
export function htmlText(html: string): string {
  const withoutHidden = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, "")
    .replace(/<![^>]*>/g, "")
    .replace(/<\?[^>]*>/g, "");
  return decodeEntities(withoutHidden.replace(/<\/?[A-Za-z][^>]*>/g, ""));
}

const PY_STRIP = /^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/g;
const strip = (s: string) => s.replace(PY_STRIP, "");
/** Python's str.splitlines() boundaries. */
const LINES = /\r\n|[\n\r\v\f\u001c\u001d\u001e\u0085\u2028\u2029]/;

/** `_parse_html_to_text`. */
export function parseHtmlToText(html: string): string {
  const text = htmlText(html);
  const lines = text.split(LINES);
  if (text.length > 0 && LINES.test(text.at(-1)!)) lines.pop();
  const chunks: string[] = [];
  for (const line of lines) for (const phrase of strip(line).split("  ")) {
    const chunk = strip(phrase);
    if (chunk) chunks.push(chunk);
  }
  return chunks.join("\n");
}
