// The server blocks of a config mapping (`<instance>: {<server type>: {<implementation>: {fields}}}`) and what
// the catalogue reads from them: metadata, datasets, and whether each implementation is on disk here.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isDict } from "../dict.ts";
import { resolveUnderRoots } from "../paths.ts";
import { entrypointIn } from "../servers.ts";
import { SERVER_TYPES, type ConfigDict, type ServerType } from "../types.ts";

export interface ServerBlock {
  instance: string;
  serverType: ServerType;
  implementation: string;
  fields: ConfigDict;
}

/** Every server of every instance, defensive about shapes (NeMo Gym's iter_server_configs). */
export function serverBlocks(config: unknown): ServerBlock[] {
  if (!isDict(config)) return [];
  const blocks: ServerBlock[] = [];
  for (const [instance, value] of Object.entries(config)) {
    if (!isDict(value)) continue;
    for (const serverType of SERVER_TYPES) {
      const servers = value[serverType];
      if (!isDict(servers)) continue;
      for (const [implementation, fields] of Object.entries(servers)) {
        if (isDict(fields)) blocks.push({ instance, serverType, implementation, fields });
      }
    }
  }
  return blocks;
}

const text = (value: unknown): string | undefined => (value === undefined || value === null || value === "" ? undefined : String(value));

/** The first `domain` and the first `description` any server declares. */
export function metadataOf(blocks: readonly ServerBlock[]): { domain?: string; description?: string } {
  return {
    domain: blocks.map((block) => text(block.fields.domain)).find((value) => value !== undefined),
    description: blocks.map((block) => text(block.fields.description)).find((value) => value !== undefined),
  };
}

/** The first resources server's `value` (what the environment is meant to improve). */
export function valueOf(blocks: readonly ServerBlock[]): string | undefined {
  return blocks.filter((block) => block.serverType === "resources_servers").map((block) => text(block.fields.value)).find((value) => value !== undefined);
}

/** The dataset entries the agents of a config declare. */
export function agentDatasets(blocks: readonly ServerBlock[]): ConfigDict[] {
  return blocks.filter((block) => block.serverType === "responses_api_agents").flatMap((block) => (Array.isArray(block.fields.datasets) ? block.fields.datasets.filter(isDict) : []));
}

/** Each distinct dataset licence, in order of appearance. */
export function licencesOf(datasets: readonly ConfigDict[]): string[] {
  return [...new Set(datasets.map((dataset) => text(dataset.license)).filter((licence): licence is string => licence !== undefined))];
}

/** `<server type>/<implementation>` of each block whose implementation no search root holds (with its entrypoint). */
export function missingServers(blocks: readonly ServerBlock[], roots: readonly string[]): string[] {
  const missing = blocks
    .filter((block) => {
      const entrypoint = typeof block.fields.entrypoint === "string" ? block.fields.entrypoint : "app.py";
      const relDir = join(block.serverType, block.implementation);
      return !resolveUnderRoots(relDir, roots, (dir) => existsSync(entrypointIn(dir, entrypoint))).found;
    })
    .map((block) => `${block.serverType}/${block.implementation}`);
  return [...new Set(missing)];
}
