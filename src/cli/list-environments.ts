// `gym list environments [NAME]`: the environment and benchmark catalogue (NeMo Gym's list_environments), each
// entry with whether this project can run it; with NAME, that entry's detail. `gym list benchmarks` and
// `gym search` are views of the same listing.
import { environmentCatalog, fuzzyMatches, type CatalogEntry, type CatalogKind } from "../config/catalog/index.ts";
import { UserError } from "../config/errors.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { displayPath, noMatches, renderInspection, textTable, unknownComponent, yesNo } from "./catalog-view.ts";

export interface CatalogListing {
  name?: string;
  query?: string;
  kind?: CatalogKind;
  domain?: string;
  modality?: string;
  licensing?: string;
  status?: string;
  lifecycle?: string;
  /** Only entries this project can run (true) or cannot (false). */
  ported?: boolean;
  json: boolean;
  searchDir: readonly string[];
}

export const searchDirFlag = () => flag.list("dir", "an extra root to search for components, before NEMO_GYM_EXTRA_ROOTS (repeatable)");

export const listEnvironmentsCommand = defineCommand({
  path: ["list", "environments"],
  description: "list or inspect the environment and benchmark catalogue, with whether each is ported here",
  examples: ["gym list environments", "gym list environments --domain math --kind benchmark --json", "gym list environments instruction_following"],
  args: { name: arg.optional("inspect this entry instead of listing all") },
  flags: {
    domain: flag.string("domain", "only entries of this domain"),
    kind: flag.string("kind", "only environments or only benchmarks", { choices: ["environment", "benchmark"] }),
    modality: flag.string("modality", "only entries of this modality"),
    licensing: flag.string("licensing", "only entries under this licence"),
    status: flag.string("status", "only entries of this validation status", { choices: ["experimental", "no-manifest"] }),
    lifecycle: flag.string("lifecycle", "only entries of this lifecycle", { choices: ["active", "deprecated"] }),
    ported: flag.boolean("only entries this project can run"),
    json: flag.boolean("print JSON"),
    searchDir: searchDirFlag(),
  },
  run: (_config, { flags, print, warn }) =>
    listCatalog({ ...flags, kind: flags.kind as CatalogKind | undefined, ported: flags.ported ? true : undefined }, print, warn),
});

/** NeMo Gym's JSON row, plus `ported`, why not, and where the config is. */
export function catalogPayload(entry: CatalogEntry): Record<string, unknown> {
  return {
    name: entry.name,
    kind: entry.kind,
    status: entry.status,
    domain: entry.domain,
    description: entry.description,
    version: entry.version,
    integration_profile: entry.integration_profile,
    modality: entry.modality,
    licensing: entry.licensing,
    lifecycle: entry.lifecycle,
    ported: entry.ported,
    missing: entry.missing,
    not_ported_reason: entry.notPortedReason,
    note: entry.note,
    config_path: entry.configPath,
  };
}

const FILTERS = ["domain", "kind", "modality", "licensing", "status", "lifecycle"] as const;

export function listCatalog(listing: CatalogListing, print: (line: string) => void, warn: (line: string) => void): number {
  const all = environmentCatalog({ extraRoots: listing.searchDir });
  for (const entry of all) for (const problem of entry.problems) warn(`Warning: ${entry.kind} '${entry.name}': ${problem}`);
  if (listing.name) {
    print(inspectEntry(listing.name, listing.kind, all, listing.json));
    return 0;
  }
  let entries = listing.query ? all.filter((e) => fuzzyMatches(listing.query!, e.name, e.domain, e.description)) : all;
  for (const field of FILTERS) {
    const expected = listing[field];
    if (expected === undefined) continue;
    const missing = entries.filter((entry) => entry[field] === null).length;
    if (missing > 0) warn(`Warning: ${missing} catalog ${missing === 1 ? "entry has" : "entries have"} no ${field} metadata and could not be matched.`);
    entries = entries.filter((entry) => matchesFilter(field, entry, expected));
  }
  if (listing.ported !== undefined) entries = entries.filter((entry) => entry.ported === listing.ported);

  if (listing.json) {
    print(JSON.stringify(entries.map(catalogPayload)));
    return 0;
  }
  const plural = listing.kind === "benchmark" ? "benchmarks" : "environments";
  if (entries.length === 0) {
    print(noMatches(plural, listing.query));
    return 0;
  }
  const manifests = all.filter((entry) => entry.manifestPath !== null).length;
  const ported = entries.filter((entry) => entry.ported).length;
  const counts = `${entries.length}; ported ${ported}/${entries.length}; manifests ${manifests}/${all.length}`;
  const title = listing.query ? `Catalog entries matching '${listing.query}' (${counts})` : `Available environments and benchmarks (${counts})`;
  const rows = entries.map((e) => [e.name, e.kind, e.ported ? "yes" : "no", e.status, e.lifecycle ?? "", e.domain ?? "", e.description ?? ""]);
  print(textTable(title, ["Name", "Kind", "Ported", "Status", "Lifecycle", "Domain", "Description"], rows));
  return 0;
}

/** A licence filter matches the licensing text or any one of the licences it lists. */
function matchesFilter(field: (typeof FILTERS)[number], entry: CatalogEntry, expected: string): boolean {
  const value = entry[field];
  if (value === expected) return true;
  return field === "licensing" && value !== null && value.split(", ").includes(expected);
}

function inspectEntry(name: string, kind: CatalogKind | undefined, all: readonly CatalogEntry[], asJson: boolean): string {
  const candidates = all.filter((entry) => kind === undefined || entry.kind === kind);
  const matches = candidates.filter((entry) => entry.name === name);
  if (matches.length === 0) {
    const other = all.find((entry) => entry.name === name);
    if (other) throw new UserError(`'${name}' is ${other.kind === "environment" ? "an" : "a"} ${other.kind}, not ${kind === "environment" ? "an" : "a"} ${kind}. Try \`gym list ${other.kind}s ${name}\`.`);
    throw unknownComponent(name, new Set(candidates.map((entry) => entry.name)), kind ?? "environment");
  }
  if (matches.length > 1) throw new UserError(`Catalog name '${name}' is ambiguous (${matches.map((e) => e.kind).sort().join(", ")}); specify a kind with --kind.`);
  const entry = matches[0]!;
  const details: Record<string, string> = {};
  if (entry.configPath) details.config = entry.configPath;
  details.status = entry.status;
  if (entry.manifestPath) details.manifest = entry.manifestPath;
  for (const [label, value] of [
    ["version", entry.version],
    ["profile", entry.integration_profile],
    ["modality", entry.modality],
    ["licensing", entry.licensing],
    ["lifecycle", entry.lifecycle],
  ] as const) {
    if (value) details[label] = value;
  }
  if (entry.details.resourcesServers.length > 0) details["resources servers"] = entry.details.resourcesServers.join(", ");
  if (entry.details.agent) details.agent = entry.details.agent;
  if (entry.details.datasets.length > 0) details.datasets = entry.details.datasets.join(", ");
  if (entry.details.numRepeats !== null) details["num repeats"] = String(entry.details.numRepeats);
  details.requires = entry.requires.join(", ");
  details.ported = yesNo(entry.ported, entry.notPortedReason);
  if (entry.note) details.note = entry.note;

  const value = entry.details.value;
  const description = value ? (entry.description ? `${entry.description}\nValue: ${value}` : `Value: ${value}`) : entry.description;
  // NeMo Gym's usage line, through the selectors (`--resources-server` for a workload in a server's configs).
  const usage =
    entry.ported && entry.configPath
      ? entry.resourcesServerSelector
        ? `gym env start --resources-server ${entry.resourcesServerSelector} --model-type vllm_model`
        : `gym env start --${entry.kind} ${name} --model-type vllm_model`
      : null;
  return renderInspection({ name, type: entry.kind, domain: entry.domain, description, details, usage, ported: entry.ported }, asJson);
}
