// The environment and benchmark catalogue (`gym list environments` / `benchmarks`), found the way NeMo Gym finds
// it: per search root, `environments/<name>/config.yaml`, every YAML under `benchmarks/` that declares a
// `type: benchmark` dataset (named by its path: `gpqa`, `longbench_v2/config_n3_1m`), then resources-server configs
// that carry a runnable workload (`resources_servers/<server>[/<flavor>]`) unless an entry already has that name.
// Earlier roots win. Each entry says whether this project can run it: every server its config chain names, every
// file it includes and every prompt it uses must be here.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { isDict } from "../dict.ts";
import { isFetchedPrompt } from "../nemo-gym-files.ts";
import { resolveUnderRoots } from "../paths.ts";
import { SERVER_TYPES } from "../types.ts";
import { readConfigChain, readYamlQuietly } from "./config-chain.ts";
import { MANIFEST_FILENAME, readManifest, type ManifestMetadata } from "./manifest.ts";
import { agentDatasets, licencesOf, metadataOf, missingServers, serverBlocks, valueOf, type ServerBlock } from "./server-blocks.ts";

export type CatalogKind = "environment" | "benchmark";
export const CATALOG_KINDS: readonly CatalogKind[] = ["environment", "benchmark"];
export type CatalogStatus = "experimental" | "no-manifest";

export interface CatalogEntry {
  name: string;
  kind: CatalogKind;
  /** `experimental` with a manifest.yaml, else `no-manifest`. */
  status: CatalogStatus;
  domain: string | null;
  description: string | null;
  version: string | null;
  integration_profile: string | null;
  modality: string | null;
  /** The manifest's licensing; without one, the licences of the config's datasets (`, `-joined). */
  licensing: string | null;
  lifecycle: string | null;
  /** Absolute path of the config; null for an entry known only from NeMo Gym's catalogue. */
  configPath: string | null;
  manifestPath: string | null;
  /** `<server>[/<flavor>]` for a workload that lives in a resources server's configs. */
  resourcesServerSelector: string | null;
  /** Whether this project can run it. */
  ported: boolean;
  /** Every `<server type>/<implementation>` its config chain names. */
  requires: string[];
  /** What is not here: `<server type>/<implementation>`, or a config / prompt file. */
  missing: string[];
  /** Why it is not ported, in a sentence (null when it is). */
  notPortedReason: string | null;
  /** What to do before running it, in a sentence (null when nothing): NeMo Gym's prompts that `gym eval prepare` fetches. */
  note: string | null;
  /** What the inspect view shows. */
  details: { value: string | null; resourcesServers: string[]; agent: string | null; datasets: string[]; numRepeats: number | null };
  /** Problems met while reading it (a file that did not parse, a broken directive). */
  problems: string[];
}

const ENVIRONMENTS_DIR = "environments";
const BENCHMARKS_DIR = "benchmarks";
const RESOURCES_SERVERS_DIR = "resources_servers";
const CONFIG_FILENAME = "config.yaml";

const key = (kind: CatalogKind, name: string) => `${kind}\u0000${name}`;
const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory();
const posix = (path: string) => path.split(sep).join("/");
const sortedDirs = (path: string) => (isDir(path) ? readdirSync(path).sort().filter((child) => isDir(join(path, child))) : []);

/** Every entry under `roots` (earlier roots shadow later ones), sorted by name as NeMo Gym sorts them. */
export function discoverCatalog(roots: readonly string[]): CatalogEntry[] {
  const entries = new Map<string, CatalogEntry>();
  const add = (found: CatalogEntry[]) => {
    for (const entry of found) if (!entries.has(key(entry.kind, entry.name))) entries.set(key(entry.kind, entry.name), entry);
  };
  for (const root of roots) {
    add(environmentConfigs(join(root, ENVIRONMENTS_DIR)).map(({ name, path }) => configEntry(name, "environment", path, roots)));
    add(benchmarkConfigs(join(root, BENCHMARKS_DIR)).map(({ name, path }) => configEntry(name, "benchmark", path, roots)));
    add(resourceWorkloads(join(root, RESOURCES_SERVERS_DIR), roots, new Set(entries.keys())));
  }
  return sortCatalog([...entries.values()]);
}

/** NeMo Gym's order: case-folded name, then name, then kind. */
export function sortCatalog(entries: CatalogEntry[]): CatalogEntry[] {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort((a, b) => compare(a.name.toLowerCase(), b.name.toLowerCase()) || compare(a.name, b.name) || compare(a.kind, b.kind));
}

function environmentConfigs(dir: string): { name: string; path: string }[] {
  return sortedDirs(dir)
    .map((child) => ({ name: child, path: join(dir, child, CONFIG_FILENAME) }))
    .filter(({ path }) => existsSync(path));
}

/** A benchmark's name: its path under benchmarks/ without `.yaml`, and `<name>/config.yaml` is just `<name>`. */
export function benchmarkName(relPath: string): string {
  const parts = posix(relPath).replace(/\.yaml$/, "").split("/");
  return parts.length === 2 && parts[1] === "config" ? parts[0]! : parts.join("/");
}

function benchmarkConfigs(dir: string): { name: string; path: string }[] {
  if (!isDir(dir)) return [];
  const found: string[] = [];
  const walk = (path: string) => {
    for (const child of readdirSync(path).sort()) {
      const childPath = join(path, child);
      if (isDir(childPath)) walk(childPath);
      else if (child.endsWith(".yaml") && child !== MANIFEST_FILENAME && declaresBenchmark(childPath)) found.push(childPath);
    }
  };
  walk(dir);
  return found.sort().map((path) => ({ name: benchmarkName(relative(dir, path)), path }));
}

/** The file itself (includes not followed) has a `type: benchmark` anywhere; an unreadable file counts, to be reported. */
function declaresBenchmark(path: string): boolean {
  const problems: string[] = [];
  const parsed = readYamlQuietly(path, problems);
  if (problems.length > 0) return true;
  const declares = (node: unknown): boolean =>
    Array.isArray(node) ? node.some(declares) : isDict(node) ? node.type === "benchmark" || Object.values(node).some(declares) : false;
  return declares(parsed);
}

function configEntry(name: string, kind: CatalogKind, configPath: string, roots: readonly string[]): CatalogEntry {
  const chain = readConfigChain(configPath, roots);
  const problems = [...chain.problems];
  const manifestPath = join(dirname(configPath), MANIFEST_FILENAME);
  const manifest = basename(configPath) === CONFIG_FILENAME ? readManifest(manifestPath, { name, kind }, problems) : undefined;
  const own = metadataOf(serverBlocks(chain.own));
  const blocks = serverBlocks(chain.merged);
  const merged = metadataOf(blocks);
  const prompts = missingPrompts(blocks, roots);
  const missing = [...chain.missingIncludes.map((entry) => `${entry} (config_paths)`), ...missingServers(blocks, roots), ...prompts.missing.map((path) => `${path} (prompt_config)`)];
  return buildEntry({
    name,
    kind,
    configPath,
    manifestPath: manifest ? manifestPath : null,
    manifest,
    domain: own.domain ?? merged.domain,
    description: own.description ?? merged.description,
    blocks,
    missing,
    missingIncludes: chain.missingIncludes,
    problems,
    selector: null,
    note:
      prompts.fetched.length > 0 && kind === "benchmark"
        ? `run \`gym eval prepare --benchmark ${name}\` first: it fetches NeMo Gym's prompt ${prompts.fetched.join(", ")} (pinned by sha256)`
        : null,
  });
}

/** Prompts not here: NeMo Gym's own templates (`fetched` by gym eval prepare, so available after it), the rest `missing`. */
function missingPrompts(blocks: readonly ServerBlock[], roots: readonly string[]): { missing: string[]; fetched: string[] } {
  const prompts = agentDatasets(blocks)
    .map((dataset) => dataset.prompt_config)
    .filter((path): path is string => typeof path === "string" && path !== "");
  const absent = [...new Set(prompts)].filter((path) => !resolveUnderRoots(path, roots).found);
  return { missing: absent.filter((path) => !isFetchedPrompt(path)), fetched: absent.filter(isFetchedPrompt) };
}

interface EntryParts {
  name: string;
  kind: CatalogKind;
  configPath: string;
  manifestPath: string | null;
  manifest: ManifestMetadata | undefined;
  domain?: string;
  description?: string;
  blocks: ServerBlock[];
  missing: string[];
  /** Includes that could not be read: a `<server type>/<implementation>/…` one still says which server it needs. */
  missingIncludes: string[];
  problems: string[];
  selector: string | null;
  note?: string | null;
}

function buildEntry(parts: EntryParts): CatalogEntry {
  const { manifest, blocks, missing } = parts;
  const datasets = agentDatasets(blocks);
  const benchmark = datasets.find((dataset) => dataset.type === "benchmark");
  const licences = licencesOf(datasets);
  return {
    name: parts.name,
    kind: parts.kind,
    status: manifest ? "experimental" : "no-manifest",
    domain: manifest?.domain ?? parts.domain ?? null,
    description: manifest?.description ?? parts.description ?? null,
    version: manifest?.version ?? null,
    integration_profile: manifest?.integration_profile ?? null,
    modality: manifest?.modality ?? null,
    licensing: manifest?.licensing ?? (licences.length > 0 ? licences.join(", ") : null),
    lifecycle: manifest?.lifecycle ?? null,
    configPath: parts.configPath,
    manifestPath: parts.manifestPath,
    resourcesServerSelector: parts.selector,
    requires: requiredServers(blocks, parts.missingIncludes),
    ported: missing.length === 0,
    missing,
    notPortedReason: missing.length === 0 ? null : `not here: ${missing.join(", ")}`,
    note: parts.note ?? null,
    details: {
      value: valueOf(blocks) ?? null,
      resourcesServers: blocks.filter((block) => block.serverType === "resources_servers").map((block) => block.instance),
      agent: blocks.find((block) => block.serverType === "responses_api_agents")?.implementation ?? null,
      datasets: datasets.map((dataset) => dataset.name).filter((name): name is string => typeof name === "string" && name !== ""),
      numRepeats: typeof benchmark?.num_repeats === "number" ? benchmark.num_repeats : benchmark ? 1 : null,
    },
    problems: parts.problems,
  };
}

function requiredServers(blocks: readonly ServerBlock[], missingIncludes: readonly string[]): string[] {
  const named = blocks.map((block) => `${block.serverType}/${block.implementation}`);
  const included = missingIncludes
    .map((entry) => posix(entry).split("/"))
    .filter((parts) => parts.length >= 3 && (SERVER_TYPES as readonly string[]).includes(parts[0]!))
    .map((parts) => `${parts[0]}/${parts[1]}`);
  return [...new Set([...named, ...included])];
}

/** `resources_servers/<server>/configs/<flavor>.yaml` files that define a resources server and agent datasets. */
function resourceWorkloads(dir: string, roots: readonly string[], claimed: ReadonlySet<string>): CatalogEntry[] {
  const found: CatalogEntry[] = [];
  const taken = new Set(claimed);
  for (const component of sortedDirs(dir)) {
    const configsDir = join(dir, component, "configs");
    if (!isDir(configsDir)) continue;
    for (const file of readdirSync(configsDir).sort().filter((f) => f.endsWith(".yaml"))) {
      const configPath = join(configsDir, file);
      const problems: string[] = [];
      const blocks = serverBlocks(readYamlQuietly(configPath, problems));
      const datasets = agentDatasets(blocks);
      if (!blocks.some((block) => block.serverType === "resources_servers") || datasets.length === 0) continue;
      const kind: CatalogKind = datasets.some((dataset) => dataset.type === "benchmark") ? "benchmark" : "environment";
      const flavor = file.replace(/\.yaml$/, "");
      const selector = flavor === component ? component : `${component}/${flavor}`;
      const name = `${RESOURCES_SERVERS_DIR}/${selector}`;
      const canonical = selector.split("/").pop()!;
      if (taken.has(key(kind, canonical)) || taken.has(key(kind, name))) continue;
      taken.add(key(kind, name));
      const chain = readConfigChain(configPath, roots);
      const mergedBlocks = serverBlocks(chain.merged);
      const missing = [...chain.missingIncludes.map((entry) => `${entry} (config_paths)`), ...missingServers(mergedBlocks, roots), ...missingPrompts(mergedBlocks, roots).missing.map((path) => `${path} (prompt_config)`)];
      const metadata = metadataOf(blocks);
      found.push(
        buildEntry({ name, kind, configPath, manifestPath: null, manifest: undefined, ...metadata, blocks: mergedBlocks, missing, missingIncludes: chain.missingIncludes, problems: [...problems, ...chain.problems], selector }),
      );
    }
  }
  return found;
}
