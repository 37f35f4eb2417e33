// The model's RTL out of its answer, as CVDP's ModelHelpers.parse_model_response reads it: one target file takes the
// first fenced code block (or the whole stripped answer); several take a JSON object whose "code" is a list of
// {path: content} objects, each content reduced to its first fenced block.
const FENCED = /```(?:(\w+)\n)?([\s\S]*?)```/;

function firstBlock(text: string): string | undefined {
  return FENCED.exec(text)?.[2];
}

/** Python's str.strip() whitespace (enough for model answers: ASCII and Unicode spaces). */
const strip = (text: string) => text.replace(/^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/gu, "");

/** {file: code}, or undefined when the answer holds no usable RTL (NeMo Gym's parse_failed). */
export function parseModelResponse(answer: string, targetFiles: string[]): Record<string, string> | undefined {
  if (targetFiles.length === 0) return undefined;
  const text = strip(answer);
  if (targetFiles.length === 1) {
    const code = firstBlock(text) ?? text;
    return code ? { [targetFiles[0]!]: code } : undefined;
  }
  // CVDP drops control characters, then parses from the first "{" to the last "}".
  const cleaned = strip(text).replace(/[\x00-\x1f\x7f]/g, "");
  const start = cleaned.indexOf("{");
  const end = cleaned.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  let output: unknown;
  try {
    output = JSON.parse(cleaned.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const code = (output as { code?: unknown })?.code;
  if (!Array.isArray(code)) return undefined;
  const files: Record<string, string> = {};
  for (const item of code) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
    for (const [path, content] of Object.entries(item)) files[path] = typeof content === "string" ? (firstBlock(content) ?? content) : String(content);
  }
  return Object.keys(files).length > 0 ? files : undefined;
}
