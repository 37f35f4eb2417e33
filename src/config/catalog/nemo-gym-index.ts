// NeMo Gym's own catalogue (environments, benchmarks, resources-server workloads at the pinned commit), committed
// as names and metadata only (nemo-gym-catalogue.json, written by scripts/nemo-gym-catalogue.ts), so `gym list`
// also shows what NeMo Gym has and this project cannot run yet, and which of its servers that needs.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveUnderRoots } from "../paths.ts";
import { entrypointIn } from "../servers.ts";
import type { CatalogEntry, CatalogKind } from "./workloads.ts";

export const NEMO_GYM_INDEX_PATH = join(dirname(fileURLToPath(import.meta.url)), "nemo-gym-catalogue.json");

export interface NemoGymIndexEntry {
  name: string;
  kind: CatalogKind;
  domain: string | null;
  description: string | null;
  licensing: string | null;
  /** `<server type>/<implementation>` its config chain names in NeMo Gym. */
  requires: string[];
}

export interface NemoGymIndex {
  source: string;
  entries: NemoGymIndexEntry[];
}

export function readNemoGymIndex(path = NEMO_GYM_INDEX_PATH): NemoGymIndex {
  return JSON.parse(readFileSync(path, "utf8")) as NemoGymIndex;
}

/** An index entry as a catalogue entry: never ported (its config is not here), missing the servers not here. */
export function indexEntry(entry: NemoGymIndexEntry, source: string, roots: readonly string[]): CatalogEntry {
  const missing = entry.requires.filter((server) => !resolveUnderRoots(server, roots, (dir) => existsSync(entrypointIn(dir, "app.py"))).found);
  return {
    name: entry.name,
    kind: entry.kind,
    status: "no-manifest",
    domain: entry.domain,
    description: entry.description,
    version: null,
    integration_profile: null,
    modality: null,
    licensing: entry.licensing,
    lifecycle: null,
    configPath: null,
    manifestPath: null,
    resourcesServerSelector: null,
    requires: entry.requires,
    ported: false,
    missing,
    notPortedReason:
      missing.length > 0
        ? `not here: ${missing.join(", ")} (listed from NeMo Gym's catalogue, ${source})`
        : `its config is not here (listed from NeMo Gym's catalogue, ${source}; its servers are)`,
    note: null,
    details: { value: null, resourcesServers: [], agent: null, datasets: [], numRepeats: null },
    problems: [],
  };
}
