// File globs for shard lists (Node 20 has no fs.glob): `*` and `?` within one path segment, `[abc]` /
// `[!abc]` character classes, `**` for any number of directories. As Python's glob, wildcards do not match
// names starting with "." unless the pattern segment does, and results are files only.
import { readdirSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";

const MAGIC = /[*?[]/;

/** `a/*.jsonl, b/**\/x-?.jsonl`: each comma-separated pattern's matches sorted, duplicates across patterns dropped. */
export function expandGlobs(patterns: string, cwd = process.cwd()): string[] {
  const seen = new Set<string>();
  for (const pattern of patterns.split(",").map((p) => p.trim()).filter(Boolean)) {
    for (const path of matchGlob(pattern, cwd).sort()) seen.add(path);
  }
  return [...seen];
}

/** Files matching one pattern, spelled as the pattern is (relative patterns give paths relative to `cwd`). */
export function matchGlob(pattern: string, cwd = process.cwd()): string[] {
  const absolute = pattern.startsWith("/");
  const segments = pattern.split("/").filter((segment, i) => segment !== "" || i === 0);
  if (absolute) segments.shift();
  if (segments.at(-1) === "**") segments.push("*");
  const found: string[] = [];
  walk(absolute ? "/" : cwd, segments, absolute ? "/" : "", found);
  return found;
}

function walk(dir: string, segments: string[], prefix: string, found: string[]): void {
  const [segment, ...rest] = segments;
  if (segment === undefined) return;
  if (segment === "**") {
    walk(dir, rest, prefix, found);
    // Symlinked directories are not followed by `**`, so a link cycle cannot loop.
    for (const entry of list(dir)) {
      if (entry.isDirectory() && !entry.name.startsWith(".")) walk(join(dir, entry.name), segments, `${prefix}${entry.name}/`, found);
    }
    return;
  }
  if (!MAGIC.test(segment)) {
    visit(join(dir, segment), `${prefix}${segment}`, rest, found);
    return;
  }
  const matcher = segmentRegExp(segment);
  for (const entry of list(dir)) {
    if (entry.name.startsWith(".") && !segment.startsWith(".")) continue;
    if (matcher.test(entry.name)) visit(join(dir, entry.name), `${prefix}${entry.name}`, rest, found);
  }
}

function visit(path: string, spelled: string, rest: string[], found: string[]): void {
  const kind = kindOf(path);
  if (rest.length === 0) {
    if (kind === "file") found.push(spelled);
  } else if (kind === "dir") {
    walk(path, rest, `${spelled}/`, found);
  }
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function kindOf(path: string): "file" | "dir" | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? "file" : stat.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined;
  }
}

/** One path segment's pattern as an anchored RegExp. */
export function segmentRegExp(segment: string): RegExp {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else if (ch === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close === -1) {
        source += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negated = body.startsWith("!");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = close;
    } else source += ch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
