// The components an environment is assembled from, per search root (earlier roots shadow later ones), as NeMo
// Gym's `gym list resources-servers` / `agents` / `models` enumerate them: one entry per config flavor,
// `<dir>` for the flavor named after its folder and `<dir>/<flavor>` for the rest.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readConfigChain, readYamlQuietly } from "./config-chain.ts";
import { metadataOf, missingServers, serverBlocks, valueOf } from "./server-blocks.ts";
import { entrypointIn } from "../servers.ts";

export interface ResourcesServerEntry {
  name: string;
  configPath: string;
  path: string;
  domain: string | null;
  description: string | null;
  value: string | null;
  /** Its implementation (with an entrypoint) is here. */
  ported: boolean;
  missing: string[];
}

export interface AgentEntry {
  name: string;
  path: string;
  /** Variant name (config file stem) → config path. */
  variants: Record<string, string>;
  /** Bundles its own environment (NeMo Gym's pattern B), rather than wiring a separate resources server (A). */
  selfContained: boolean;
  description: string | null;
  ported: boolean;
}

export interface ModelEntry {
  /** The `--model-type` token: `<dir>` or `<dir>/<flavor>`. */
  name: string;
  modelGroup: string;
  configPath: string;
  ported: boolean;
}

const isDir = (path: string) => existsSync(path) && statSync(path).isDirectory();
const childDirs = (path: string) => (isDir(path) ? readdirSync(path).sort().filter((child) => isDir(join(path, child))) : []);
const yamlFiles = (dir: string) => (isDir(dir) ? readdirSync(dir).sort().filter((file) => file.endsWith(".yaml")).map((file) => join(dir, file)) : []);
const flavorName = (dir: string, file: string) => {
  const stem = file.split("/").pop()!.replace(/\.yaml$/, "");
  return stem === dir ? dir : `${dir}/${stem}`;
};

/** Earlier roots win on a name collision; each root's own order is kept. */
function mergeByName<T extends { name: string }>(perRoot: T[][]): T[] {
  const merged = new Map<string, T>();
  for (const entries of perRoot) for (const entry of entries) if (!merged.has(entry.name)) merged.set(entry.name, entry);
  return [...merged.values()];
}

/** Has an app entrypoint (app.py or, here, app.ts). */
const hasApp = (dir: string) => existsSync(entrypointIn(dir, "app.py"));

export function discoverResourcesServers(roots: readonly string[]): ResourcesServerEntry[] {
  return mergeByName(
    roots.map((root) => {
      const base = join(root, "resources_servers");
      return childDirs(base).flatMap((dir) =>
        yamlFiles(join(base, dir, "configs")).flatMap((configPath): ResourcesServerEntry[] => {
          const own = serverBlocks(readYamlQuietly(configPath, []));
          if (!own.some((block) => block.serverType === "resources_servers")) return [];
          const metadata = metadataOf(own);
          const merged = metadata.domain !== undefined && metadata.description !== undefined ? metadata : { ...metadataOf(serverBlocks(readConfigChain(configPath, roots).merged)), ...definedOnly(metadata) };
          const missing = missingServers(own.filter((block) => block.serverType === "resources_servers"), roots);
          return [
            {
              name: flavorName(dir, configPath),
              configPath,
              path: join(base, dir),
              domain: merged.domain ?? null,
              description: merged.description ?? null,
              value: valueOf(own) ?? null,
              ported: missing.length === 0,
              missing,
            },
          ];
        }),
      );
    }),
  );
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function discoverAgents(roots: readonly string[]): AgentEntry[] {
  return mergeByName(
    roots.map((root) => {
      const base = join(root, "responses_api_agents");
      return childDirs(base).flatMap((dir): AgentEntry[] => {
        const path = join(base, dir);
        const variants = yamlFiles(join(path, "configs"))
          .map((configPath) => ({ configPath, blocks: serverBlocks(readYamlQuietly(configPath, [])).filter((block) => block.serverType === "responses_api_agents") }))
          .filter(({ blocks }) => blocks.length > 0);
        if (!hasApp(path) && variants.length === 0) return [];
        const fields = variants.flatMap(({ blocks }) => blocks.map((block) => block.fields));
        // Pattern A: some variant wires a resources server and none brings its own framework or model loop.
        const wiresResourcesServer = fields.some((f) => "resources_server" in f) && !fields.some((f) => "agent_framework" in f || "anthropic_api_key" in f);
        const description = fields.map((f) => f.description).find((d): d is string => typeof d === "string") ?? null;
        return [
          {
            name: dir,
            path,
            variants: Object.fromEntries(variants.map(({ configPath }) => [configPath.split("/").pop()!.replace(/\.yaml$/, ""), configPath])),
            selfContained: fields.length > 0 && !wiresResourcesServer,
            description,
            // A folder with one entrypoint per config class (langgraph_agent: a file per graph) has no app: it is
            // ported when every variant's entrypoint is here.
            ported: hasApp(path) || (variants.length > 0 && variants.every(({ blocks }) => missingServers(blocks, roots).length === 0)),
          },
        ];
      });
    }),
  );
}

export function discoverModels(roots: readonly string[]): ModelEntry[] {
  return mergeByName(
    roots.map((root) => {
      const base = join(root, "responses_api_models");
      return childDirs(base).flatMap((dir) =>
        yamlFiles(join(base, dir, "configs")).map((configPath) => ({ name: flavorName(dir, configPath), modelGroup: dir, configPath, ported: hasApp(join(base, dir)) })),
      );
    }),
  );
}
