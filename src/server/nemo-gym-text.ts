// A judge environment's prompt text that is NeMo Gym's (project rule: their text is never committed here): a file of
// their repository at the pinned commit, or one string read out of one (a YAML config key, a Python module constant,
// an f-string a Python function returns), fetched when the server starts and written where the environment's config
// points (git-ignored). The source file is checked against its sha256 (src/config/nemo-gym-files.ts), so the text is
// the one NeMo Gym's verifier formats. A file already at the destination is the user's to keep and is used as it is,
// as `gym eval prepare` does with prompt_configs.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { fetchPinnedFile, PinnedFileError } from "../client/pinned-file.ts";
import { NEMO_GYM_SERVER_FILE_SHA256, nemoGymRawBaseUrl } from "../config/nemo-gym-files.ts";
import { readPythonConstants } from "../python/literal.ts";

/** How the text is read out of NeMo Gym's file. */
export type NemoGymTextExtract =
  /** The whole file. */
  | { kind: "file" }
  /** A string at this key path of the YAML document. */
  | { kind: "yaml"; path: readonly string[] }
  /** A module-level `NAME = "..."` string constant (only its own assignment is read). */
  | { kind: "python_constant"; name: string }
  /**
   * The f-string `return f"""..."""` of this function, as a str.format template: each `{expr}` becomes `{name}` where
   * `fields` maps expr → name (every expression must be mapped), literal braces stay doubled.
   */
  | { kind: "python_fstring"; function: string; fields: Readonly<Record<string, string>> };

export interface NemoGymText {
  /** The file's path in NeMo Gym's repository (a key of NEMO_GYM_SERVER_FILE_SHA256). */
  repoPath: string;
  extract: NemoGymTextExtract;
}

export class NemoGymTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NemoGymTextError";
  }
}

/** Reads the text out of the source file's contents. */
export function extractNemoGymText(source: string, text: NemoGymText): string {
  const { extract } = text;
  const where = `${text.repoPath}`;
  switch (extract.kind) {
    case "file":
      return source;
    case "yaml": {
      let node: unknown = parseYaml(source);
      for (const key of extract.path) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
      if (typeof node !== "string") throw new NemoGymTextError(`${where}: no string at ${extract.path.join(".")}`);
      return node;
    }
    case "python_constant": {
      // Only the assignment itself: later statements that merely read the constant (a pydantic Field default) are
      // not the reader's business, and the file is pinned, so this slice is always the same.
      const start = new RegExp(`^${extract.name}\\s*=`, "m").exec(source);
      if (!start) throw new NemoGymTextError(`${where}: no assignment of ${extract.name}`);
      const rest = source.slice(start.index);
      const triple = /^[^\n]*?("""|\'\'\')/.exec(rest);
      const literalEnd = triple ? rest.indexOf(triple[1]!, triple[0].length) + 3 : 0;
      const next = /\n(?=[^\s#)\]}])/.exec(rest.slice(literalEnd));
      const statement = rest.slice(0, next ? literalEnd + next.index : rest.length);
      const value = readPythonConstants(statement, [extract.name])[extract.name];
      if (typeof value !== "string") throw new NemoGymTextError(`${where}: ${extract.name} is not a string`);
      return value;
    }
    case "python_fstring": {
      const def = new RegExp(`\\n\\s*def ${extract.function}\\(`).exec(source);
      if (!def) throw new NemoGymTextError(`${where}: no function ${extract.function}`);
      const body = source.slice(def.index);
      const open = body.indexOf('return f"""');
      const close = open < 0 ? -1 : body.indexOf('"""', open + 11);
      if (open < 0 || close < 0) throw new NemoGymTextError(`${where}: ${extract.function} returns no f"""…""" string`);
      const raw = body.slice(open + 11, close);
      if (raw.includes("\\")) throw new NemoGymTextError(`${where}: ${extract.function}'s f-string has escapes this reader does not decode`);
      return raw.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, expr: string | undefined) => {
        if (expr === undefined) return match;
        const name = extract.fields[expr.trim()];
        if (name === undefined) throw new NemoGymTextError(`${where}: ${extract.function}'s f-string has {${expr}}, which is not mapped`);
        return `{${name}}`;
      });
    }
  }
}

export interface EnsureTextOptions {
  /** NeMo Gym's repository at the pinned commit (or a stand-in); default NEMO_GYM_RAW_BASE_URL or its env override. */
  baseUrl?: string;
  /** The digest per repository path; default NEMO_GYM_SERVER_FILE_SHA256. */
  sha256?: Readonly<Record<string, string>>;
  /** Told when the text was fetched (not when it was already there). */
  onFetched?: (dest: string, url: string) => void;
  maxRetries?: number;
}

/** Brings NeMo Gym's text to `dest` unless a file is there already; returns the file's contents. */
export async function ensureNemoGymText(dest: string, text: NemoGymText, options: EnsureTextOptions = {}): Promise<string> {
  if (existsSync(dest)) return readFileSync(dest, "utf8");
  const digests = options.sha256 ?? NEMO_GYM_SERVER_FILE_SHA256;
  const sha256 = digests[text.repoPath];
  if (sha256 === undefined) throw new NemoGymTextError(`${text.repoPath} has no pinned sha256`);
  const url = `${(options.baseUrl ?? nemoGymRawBaseUrl()).replace(/\/+$/, "")}/${text.repoPath}`;
  const staging = mkdtempSync(join(tmpdir(), "gym-nemo-text-"));
  try {
    const downloaded = join(staging, "source");
    try {
      await fetchPinnedFile({ url, dest: downloaded, sha256, maxRetries: options.maxRetries ?? 3 });
    } catch (error) {
      if (error instanceof PinnedFileError) throw new NemoGymTextError(`${dest} is absent and NeMo Gym's ${text.repoPath} ${error.message}`);
      throw error;
    }
    const value = extractNemoGymText(readFileSync(downloaded, "utf8"), text);
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, value);
    options.onFetched?.(dest, url);
    return value;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * A prompt file a server's config names (`judge_prompt_template_fpath` and the like), relative to the server's
 * folder as NeMo Gym opens it. When it is absent and is one of the paths the server knows as NeMo Gym's text
 * (`pinned`, by path relative to the folder), it is fetched first; any other absent file fails the start, naming it.
 */
export async function readServerPromptFile(serverDir: string, fpath: string, pinned: Readonly<Record<string, NemoGymText>>, options: EnsureTextOptions = {}): Promise<string> {
  const path = isAbsolute(fpath) ? fpath : join(serverDir, fpath);
  const known = Object.entries(pinned).find(([relative]) => resolve(serverDir, relative) === resolve(path));
  if (known && !existsSync(path)) return ensureNemoGymText(path, known[1], options);
  if (!existsSync(path)) throw new NemoGymTextError(`prompt file ${path} does not exist`);
  return readFileSync(path, "utf8");
}
