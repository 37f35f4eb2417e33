// NeMo Gym's asset selectors: `--resources-server NAME[/flavor]`, `--model-type TYPE[/flavor]`,
// `--environment NAME`, `--benchmark NAME` name a config file instead of spelling its path. Each resolves under
// the search roots (--search-dir / NEMO_GYM_EXTRA_ROOTS, cwd, project root; the first root wins), and a name
// that resolves to nothing is a user error that says which file it implied, the closest real name and where
// it looked — NeMo Gym's message, word for word.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parse as parseYaml } from "yaml";
import { getCloseMatches } from "../python/difflib.ts";
import { UserError } from "./errors.ts";
import { searchRoots } from "./paths.ts";

export type SelectorFlag = "benchmark" | "environment" | "resources-server" | "model-type";

interface AssetLayout {
  /** Folder under each root. */
  parent: string;
  /** Folder of the configs inside one asset's folder ("" for the asset's folder itself). */
  subdir: string;
  /** Config file name without `.yaml` when the value names no flavor; null: the asset's own name. */
  defaultFlavor: string | null;
}

const LAYOUTS: Readonly<Record<SelectorFlag, AssetLayout>> = {
  benchmark: { parent: "benchmarks", subdir: "", defaultFlavor: "config" },
  environment: { parent: "environments", subdir: "", defaultFlavor: "config" },
  "resources-server": { parent: "resources_servers", subdir: "configs", defaultFlavor: null },
  "model-type": { parent: "responses_api_models", subdir: "configs", defaultFlavor: null },
};

/** ` Did you mean \`X\`?` for the closest candidate (difflib, as NeMo Gym's did_you_mean), or "". */
export function didYouMean(value: string, candidates: Iterable<string>): string {
  const [match] = getCloseMatches(value, candidates, 1);
  return match === undefined ? "" : ` Did you mean \`${match}\`?`;
}

export interface SelectorOptions {
  /** Default: `searchRoots()` (NEMO_GYM_EXTRA_ROOTS, cwd, project root). */
  roots?: readonly string[];
  /** Told when a name matches in several roots (the first wins). */
  warn?: (message: string) => void;
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();
const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** Absolute paths of the existing candidates, first root first, each once. */
function existingUnder(roots: readonly string[], relPath: string, exists: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const root of roots) {
    const candidate = join(root, relPath);
    if (!exists(candidate)) continue;
    const real = realpathSync(candidate);
    if (!found.includes(real)) found.push(real);
  }
  return found;
}

function firstOf(found: string[], flag: SelectorFlag, value: string, warn: ((message: string) => void) | undefined): string {
  if (found.length > 1) {
    const shadowed = found.slice(1).map((path) => `\`${path}\``).join(", ");
    warn?.(`\`--${flag} ${value}\` matches multiple configs; using \`${found[0]}\` from the highest-priority root and ignoring ${shadowed}. Pass \`--config <path>\` to select a different one.`);
  }
  return found[0]!;
}

/**
 * The config file `--<flag> <value>` names: `<parent>/<name>/[<subdir>/]<flavor>.yaml` for `name` or
 * `name/flavor`; a benchmark or environment may also be nested (`livecodebench/v5_2408_2502` →
 * benchmarks/livecodebench/v5_2408_2502/config.yaml). Absolute path; UserError when nothing matches.
 */
export function assetConfigPath(flag: SelectorFlag, value: string, options: SelectorOptions = {}): string {
  const { parent, subdir, defaultFlavor } = LAYOUTS[flag];
  const roots = options.roots ?? searchRoots();
  const slash = value.indexOf("/");
  const serverName = slash === -1 ? value : value.slice(0, slash);
  const configFlavor = (slash === -1 ? "" : value.slice(slash + 1)) || defaultFlavor || serverName;
  const configDir = subdir ? `${parent}/${serverName}/${subdir}` : `${parent}/${serverName}`;
  const path = `${configDir}/${configFlavor}.yaml`;

  if (slash !== -1 && (flag === "benchmark" || flag === "environment")) {
    const nested = existingUnder(roots, `${parent}/${value}/config.yaml`, isFile);
    if (nested.length > 0) return firstOf(nested, flag, value, options.warn);
  }
  const matches = existingUnder(roots, path, existsSync);
  if (matches.length > 0) return firstOf(matches, flag, value, options.warn);

  let hint: string;
  let available: string;
  if (flag === "benchmark") {
    // Benchmarks nest arbitrarily, so the candidates are every benchmark config's name (what `gym list
    // benchmarks` prints); a folder that only groups benchmarks points at the shortest name under it.
    const names = new Set(roots.flatMap((root) => benchmarkConfigNames(join(root, parent))));
    const under = [...names].filter((name) => name.startsWith(`${value}/`)).sort();
    const shortest = under.reduce<string | undefined>((best, name) => (best === undefined || name.length < best.length ? name : best), undefined);
    hint = shortest !== undefined ? ` Did you mean \`${shortest}\`?` : didYouMean(value, names);
    available = existingDirs(roots, parent).sort().join(", ");
  } else {
    // A flavor typo when the asset exists (its config names), else an asset-name typo (the folder names).
    let typo = configFlavor;
    let candidates = roots.flatMap((root) => yamlStems(join(root, configDir)));
    available = existingDirs(roots, configDir).join(", ");
    if (candidates.length === 0) {
      typo = serverName;
      candidates = roots.flatMap((root) => subfolders(join(root, parent)));
      available = existingDirs(roots, parent).join(", ");
    }
    hint = didYouMean(typo, candidates);
  }
  // NeMo Gym's sentence ends in an empty list when no root has the folder at all; then say where it looked.
  const where = available
    ? `See available ${flag} configs in ${available}.`
    : `No search root has a ${parent}/ folder (searched ${roots.map((root) => `\`${root}\``).join(", ")}); add one with --search-dir DIR.`;
  throw new UserError(`\`--${flag} ${value}\` was specified which implies config \`${path}\`, which does not exist.${hint} ${where}`);
}

/** `\`<abs dir>\`` for each root that has `relDir`, each once. */
function existingDirs(roots: readonly string[], relDir: string): string[] {
  return existingUnder(roots, relDir, isDir).map((dir) => `\`${dir}\``);
}

function yamlStems(dir: string): string[] {
  if (!isDir(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => name.slice(0, -".yaml".length));
}

function subfolders(dir: string): string[] {
  if (!isDir(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/**
 * The names of the benchmark configs under `benchmarksDir`: every YAML that declares a `type: benchmark`
 * dataset (an unreadable one counts, so that it is not invisible), named by its path without `.yaml`,
 * `<name>/config` shortened to `<name>` (only at the top: NeMo Gym names a nested one
 * `livecodebench/v6/config`, which works as a `--benchmark` value too, as name/flavor).
 */
export function benchmarkConfigNames(benchmarksDir: string): string[] {
  if (!isDir(benchmarksDir)) return [];
  const files = (readdirSync(benchmarksDir, { recursive: true }) as string[]).filter((file) => file.endsWith(".yaml")).sort();
  return files
    .filter((file) => declaresBenchmark(join(benchmarksDir, file)))
    .map((file) => {
      const parts = relative(benchmarksDir, join(benchmarksDir, file)).slice(0, -".yaml".length).split(sep);
      return parts.length === 2 && parts[1] === "config" ? parts[0]! : parts.join("/");
    });
}

function declaresBenchmark(file: string): boolean {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, "utf8"));
  } catch {
    return true;
  }
  const declares = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(declares);
    if (node !== null && typeof node === "object") {
      const dict = node as Record<string, unknown>;
      return dict.type === "benchmark" || Object.values(dict).some(declares);
    }
    return false;
  };
  return declares(parsed);
}
