// The audio side channel: a row carries audio in `metadata` (the Responses input has no audio part), and
// it is spliced into the last user message as vLLM `audio_url` blocks, before the text.
//   audio_data  — one `data:audio/...;base64,` URI
//   audio_path  — one file, relative paths against `audio_root`, inlined as a data URI
//   audio_paths — several files (a JSON array string, since metadata values are strings)
// A request names the file, so reads are confined to the directories the config allows (`audio_root` and
// `allowed_audio_dirs`), and every refusal is one error: a caller learns nothing about a path it may not read
// (whether it exists, is a directory, or escapes through a symlink or `..`).
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { extname, isAbsolute, join, relative, sep } from "node:path";
import { HttpError } from "../../src/server/index.ts";

type Json = Record<string, unknown>;

const AUDIO_KEYS = ["audio_data", "audio_path", "audio_paths"] as const;

// The data URI's subtype picks vLLM's decoder; guessing wrong mis-decodes silently, so unknown extensions fail.
const MIME_BY_EXTENSION: Record<string, string> = { ".wav": "wav", ".flac": "flac", ".mp3": "mpeg", ".m4a": "mp4", ".ogg": "ogg", ".opus": "opus" };

/** Where audio may be read from: the model server's config. */
export interface AudioDirs {
  /** Relative paths resolve against it; it is also an allowed directory. */
  audio_root?: string | null;
  /** More directories absolute paths may point into. */
  allowed_audio_dirs?: readonly string[];
}

const refused = (key: string) => new HttpError(400, `${key}: not an allowed audio file`);

async function audioFileDataUri(path: string, dirs: AudioDirs, key: string): Promise<string> {
  const roots = [dirs.audio_root, ...(dirs.allowed_audio_dirs ?? [])].filter((dir): dir is string => typeof dir === "string" && dir !== "");
  // A config problem, the same whatever the path: says what to set.
  if (roots.length === 0) throw new HttpError(400, `${key}: this model server reads no audio files; set audio_root (and allowed_audio_dirs) in its config, or send metadata.audio_data`);

  if (path.split(/[\\/]/).includes("..")) throw refused(key);
  if (!isAbsolute(path) && !dirs.audio_root) throw refused(key);
  const mime = MIME_BY_EXTENSION[extname(path).toLowerCase()];
  if (!mime) throw refused(key);

  const requested = isAbsolute(path) ? path : join(dirs.audio_root!, path);
  // Symlinks resolved on both sides before the containment check; a root that does not exist allows nothing.
  const real = await realpath(requested).catch(() => undefined);
  const realRoots = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  if (real === undefined || MIME_BY_EXTENSION[extname(real).toLowerCase()] !== mime || !realRoots.some((root) => root !== undefined && isInside(real, root))) throw refused(key);

  // O_NOFOLLOW: the resolved path is read, not a symlink swapped in since; O_NONBLOCK: a FIFO does not hang the open.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (handle === undefined) throw refused(key);
  try {
    if (!(await handle.stat()).isFile()) throw refused(key);
    const bytes = await handle.readFile().catch(() => {
      throw refused(key);
    });
    return `data:audio/${mime};base64,${bytes.toString("base64")}`;
  } finally {
    await handle.close();
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && rel.split(sep)[0] !== ".." && !isAbsolute(rel);
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
export async function spliceAudio(body: Json, dirs: AudioDirs): Promise<Json> {
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
        ? [await audioFileDataUri(String(metadata.audio_path), dirs, "metadata.audio_path")]
        : await Promise.all(pathList(metadata.audio_paths).map((path, i) => audioFileDataUri(path, dirs, `metadata.audio_paths[${i}]`)));

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
