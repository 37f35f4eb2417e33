// Start one server definition on a loopback port for a test, with a minimal global config around it.
import type { ConfigDict } from "../../src/config/index.ts";
import { HttpClient } from "../../src/client/index.ts";
import type { ServerDefinition } from "../../src/server/index.ts";
import { startInProcess, type InProcessGraph } from "../../src/testing/in-process.ts";

/** `{ name: [definition, fields] }` → a resolved config with those instances (implementation dir "test"). */
export async function startServers(servers: Record<string, [ServerDefinition, Record<string, unknown>?]>, topLevel: ConfigDict = {}): Promise<InProcessGraph> {
  const config: ConfigDict = { ...topLevel };
  const definitions: Record<string, ServerDefinition> = {};
  for (const [name, [definition, fields]] of Object.entries(servers)) {
    const required = definition.serverType === "resources_servers" ? { domain: "other" } : {};
    config[name] = { [definition.serverType]: { test: { entrypoint: "app.ts", ...required, ...(fields ?? {}) } } };
    definitions[name] = definition;
  }
  return startInProcess(config, definitions);
}

export const http = () => new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 15_000, maxRetries: 0 });
