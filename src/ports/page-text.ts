// A page's main text, the part a reader wants (NeMo Gym's browse tools call trafilatura.extract): Mozilla's
// Readability (Firefox's reader view) over linkedom's DOM picks the article, then its text is laid out one block a
// line — paragraphs, headings, list items, table rows — with runs of spaces collapsed and empty lines dropped.
// trafilatura has no TypeScript twin, so the text is not byte-identical to NeMo Gym's; it is the same kind of text
// (main content, no navigation, no markup). null when the page has no readable content, as trafilatura's None.
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";

const BLOCKS = new Set(["P", "DIV", "SECTION", "ARTICLE", "H1", "H2", "H3", "H4", "H5", "H6", "LI", "TR", "PRE", "BLOCKQUOTE", "DT", "DD", "FIGCAPTION", "BR", "TABLE", "UL", "OL"]);

interface TextNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<TextNode>;
}

function layout(node: TextNode, lines: string[], current: { text: string }): void {
  const flush = () => {
    const line = current.text.replace(/[ \t\f\v\r\n\u00a0]+/g, " ").trim();
    if (line) lines.push(line);
    current.text = "";
  };
  if (node.nodeType === 3) {
    current.text += node.textContent ?? "";
    return;
  }
  const block = BLOCKS.has(node.nodeName.toUpperCase());
  if (block) flush();
  for (let i = 0; i < node.childNodes.length; i++) layout(node.childNodes[i]!, lines, current);
  if (block) flush();
}

export function extractMainText(html: string): string | null {
  const { document } = parseHTML(html);
  let article: { content?: string | null } | null;
  try {
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 100 }).parse();
  } catch {
    return null;
  }
  if (!article?.content) return null;
  const { document: content } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
  const lines: string[] = [];
  const current = { text: "" };
  layout(content.body as unknown as TextNode, lines, current);
  const rest = current.text.replace(/\s+/g, " ").trim();
  if (rest) lines.push(rest);
  return lines.length > 0 ? lines.join("\n") : null;
}
