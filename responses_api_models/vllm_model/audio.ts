// The audio side channel: a row carries audio in `metadata` (the Responses input has no audio part), and
// it is spliced into the last user message as vLLM `audio_url` blocks, before the text.
//   audio_data  — one `data:audio/...;base64,` URI
//   audio_path  — one file, relative paths against `audio_root`, inlined as a data URI
//   audio_paths — several files (a JSON array string, since metadata values are strings)
import { readFile, stat } from "node:fs/promises";
import { extname, isAbsolute, join } from "node:path";
import { HttpError } from "../../src/server/index.ts";

type Json = Record<string, unknown>;

const AUDIO_KEYS = ["audio_data", "audio_path", "audio_paths"] as const;

// The data URI's subtype picks vLLM's decoder; guessing wrong mis-decodes silently, so unknown extensions fail.
const MIME_BY_EXTENSION: Record<string, string> = { ".wav": "wav", ".flac": "flac", ".mp3": "mpeg", ".m4a": "mp4", ".ogg": "ogg", ".opus": "opus" };

async function audioFileDataUri(path: string, audioRoot: string | null | undefined): Promise<string> {
  let resolved: string;
  if (isAbsolute(path)) resolved = path;
  else if (audioRoot) resolved = join(audioRoot, path);
  else throw new HttpError(400, `metadata.audio_path ${JSON.stringify(path)} is relative but the model server's audio_root is unset; set audio_root in its config or use absolute paths`);

  const isFile = await stat(resolved).then((s) => s.isFile(), () => false);
  if (!isFile) throw new HttpError(400, `metadata.audio_path resolved to ${JSON.stringify(resolved)}, which does not exist`);
  const extension = extname(resolved).toLowerCase();
  const mime = MIME_BY_EXTENSION[extension];
  if (!mime) {
    throw new HttpError(400, `unsupported audio extension ${JSON.stringify(extension)} for ${JSON.stringify(resolved)}; supported: ${Object.keys(MIME_BY_EXTENSION).sort().join(", ")}`);
  }
  return `data:audio/${mime};base64,${(await readFile(resolved)).toString("base64")}`;
}

function pathList(value: unknown): string[] {
  let list = value;
  if (typeof value === "string") {
    try {
      list = JSON.parse(value);
    } catch {
      list = value;
    }
  }
  if (!Array.isArray(list) || !list.every((p) => typeof p === "string")) {
    throw new HttpError(400, `metadata.audio_paths must be a list of paths (a JSON array string such as '["a.wav", "b.flac"]'), got ${JSON.stringify(value)}`);
  }
  return list;
}

/** The body with audio spliced in and the consumed metadata key removed (`metadata` too, once empty). */
export async function spliceAudio(body: Json, audioRoot: string | null | undefined): Promise<Json> {
  const metadata = (body.metadata ?? {}) as Json;
  const present = AUDIO_KEYS.filter((key) => metadata[key]);
  if (present.length === 0) return body;
  if (present.length > 1) {
    throw new HttpError(400, `metadata audio keys are mutually exclusive, got ${present.join(", ")}; set exactly one of audio_data / audio_path / audio_paths per row`);
  }
  const key = present[0]!;
  const urls =
    key === "audio_data"
      ? [String(metadata.audio_data)]
      : key === "audio_path"
        ? [await audioFileDataUri(String(metadata.audio_path), audioRoot)]
        : await Promise.all(pathList(metadata.audio_paths).map((path) => audioFileDataUri(path, audioRoot)));

  const { [key]: _consumed, ...remaining } = metadata;
  const spliced: Json = { ...body };
  if (Object.keys(remaining).length > 0) spliced.metadata = remaining;
  else delete spliced.metadata;

  const blocks = urls.map((url) => ({ type: "audio_url", audio_url: { url } }));
  const messages = [...((body.messages as Json[] | undefined) ?? [])];
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  if (lastUser === -1) {
    messages.push({ role: "user", content: blocks });
  } else {
    const content = messages[lastUser]!.content;
    const withAudio = typeof content === "string" ? [...blocks, { type: "text", text: content }] : Array.isArray(content) ? [...blocks, ...content] : blocks;
    messages[lastUser] = { ...messages[lastUser], content: withAudio };
  }
  spliced.messages = messages;
  return spliced;
}
