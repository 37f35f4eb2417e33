// The catalogue behind `gym list` and `gym search`: environments and benchmarks (with whether this project can run
// each), resources servers, agents and models, read from the search roots' files; never starts anything.
import { searchRoots, type SearchRootOptions } from "../paths.ts";
import { indexEntry, readNemoGymIndex } from "./nemo-gym-index.ts";
import { discoverCatalog, sortCatalog, type CatalogEntry } from "./workloads.ts";

export { discoverCatalog, benchmarkName, CATALOG_KINDS, type CatalogEntry, type CatalogKind, type CatalogStatus } from "./workloads.ts";
export { discoverAgents, discoverModels, discoverResourcesServers, type AgentEntry, type ModelEntry, type ResourcesServerEntry } from "./components.ts";
export { readNemoGymIndex, NEMO_GYM_INDEX_PATH, type NemoGymIndex, type NemoGymIndexEntry } from "./nemo-gym-index.ts";
export { closeMatches, didYouMean, fuzzyMatches, similarity } from "./fuzzy.ts";
export { readConfigChain, type ConfigChain } from "./config-chain.ts";
export { serverBlocks, type ServerBlock } from "./server-blocks.ts";

export interface CatalogOptions extends SearchRootOptions {
  /** Add NeMo Gym's entries that have no config here (default true). */
  withNemoGym?: boolean;
}

/** The search roots' entries, then NeMo Gym's that none of them has (same kind and name). */
export function environmentCatalog(options: CatalogOptions = {}): CatalogEntry[] {
  const roots = searchRoots(options);
  const entries = discoverCatalog(roots);
  if (options.withNemoGym === false) return entries;
  const index = readNemoGymIndex();
  const here = new Set(entries.map((entry) => `${entry.kind}/${entry.name}`));
  const fromNemo = index.entries.filter((entry) => !here.has(`${entry.kind}/${entry.name}`)).map((entry) => indexEntry(entry, index.source, roots));
  return sortCatalog([...entries, ...fromNemo]);
}
