// The graph's head token: the launcher mints one per graph, and a caller of the head server that presents it
// gets the config with its secrets (anyone else gets it redacted). Servers of the graph receive it over IPC;
// other processes of the user who started the graph (`gym eval run --no-serve`) find it in a file only that
// user can read, or in NEMO_GYM_HEAD_TOKEN.
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const HEAD_TOKEN_HEADER = "x-ng-head-token";
export const HEAD_TOKEN_ENV = "NEMO_GYM_HEAD_TOKEN";

/** 256 random bits, URL-safe: a head token or a session signing secret. */
export function newGraphSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** The headers that present `token` to a head server (none without a token). */
export function headTokenHeaders(token: string | undefined): Record<string, string> {
  return token ? { [HEAD_TOKEN_HEADER]: token } : {};
}

/**
 * A directory only this user can enter (XDG_RUNTIME_DIR when set, else `<tmp>/nemo-gym-<uid>`), or undefined when
 * it cannot be made so (e.g. someone else created it first): the token is then not written rather than exposed.
 */
function privateStateDir(env: NodeJS.ProcessEnv): string | undefined {
  const uid = process.getuid?.();
  const dir = join(env.XDG_RUNTIME_DIR || tmpdir(), `nemo-gym-${uid ?? "user"}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** Where the token of the head server on `port` is kept (one head server per port on a machine). */
export function headTokenPath(port: number, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = privateStateDir(env);
  return dir === undefined ? undefined : join(dir, `head-${port}.token`);
}

/** Writes the token file (mode 0600); returns its path, or undefined when there is no private place for it. */
export function writeHeadToken(port: number, token: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = headTokenPath(port, env);
  if (path === undefined) return undefined;
  rmSync(path, { force: true });
  writeFileSync(path, token, { mode: 0o600, flag: "wx" });
  return path;
}

export function removeHeadToken(path: string | undefined): void {
  if (path !== undefined) rmSync(path, { force: true });
}

/** The token for the head server on `port`: NEMO_GYM_HEAD_TOKEN, else this user's token file, else none. */
export function readHeadToken(port: number | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[HEAD_TOKEN_ENV]) return env[HEAD_TOKEN_ENV];
  if (port === undefined) return undefined;
  const path = headTokenPath(port, env);
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
