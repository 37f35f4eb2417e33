// `gym list agents|models|resources-servers [NAME]`: the components an environment is built from (NeMo Gym's
// list_agents / list_models / list_resources_servers), each with whether it is implemented here; with NAME, its
// detail. `gym search <type> QUERY` narrows the same listings.
import { discoverAgents, discoverModels, discoverResourcesServers, fuzzyMatches } from "../config/catalog/index.ts";
import { searchRoots } from "../config/paths.ts";
import { noMatches, renderInspection, textTable, unknownComponent, yesNo } from "./catalog-view.ts";

export interface ComponentListing {
  name?: string;
  query?: string;
  json: boolean;
  searchDir: readonly string[];
}

type Print = (line: string) => void;

const composition = (selfContained: boolean) => (selfContained ? "self-contained (B)" : "composable (A)");

export function listAgents(listing: ComponentListing, print: Print): number {
  let agents = discoverAgents(searchRoots({ extraRoots: listing.searchDir }));
  if (listing.name) {
    const entry = agents.find((agent) => agent.name === listing.name);
    if (!entry) throw unknownComponent(listing.name, agents.map((agent) => agent.name), "agent");
    const details: Record<string, string> = { path: entry.path, composition: composition(entry.selfContained) };
    const variants = Object.keys(entry.variants).sort();
    if (variants.length > 0) details.variants = variants.join(", ");
    details.ported = yesNo(entry.ported, "no app entrypoint here");
    print(renderInspection({ name: entry.name, type: "agent", description: entry.description, details, ported: entry.ported }, listing.json));
    return 0;
  }
  if (listing.query) agents = agents.filter((agent) => fuzzyMatches(listing.query!, agent.name, agent.description, ...Object.keys(agent.variants)));
  if (listing.json) {
    const payload = agents.map((agent) => ({
      name: agent.name,
      pattern: agent.selfContained ? "B (self-contained)" : "A (composable)",
      self_contained: agent.selfContained,
      variants: Object.keys(agent.variants).sort(),
      description: agent.description,
      ported: agent.ported,
    }));
    print(JSON.stringify(payload));
    return 0;
  }
  if (agents.length === 0) return print(noMatches("agents", listing.query)), 0;
  const rows = agents.map((agent) => [agent.name, composition(agent.selfContained), Object.keys(agent.variants).sort().join(", ") || "—", agent.ported ? "yes" : "no", agent.description ?? ""]);
  print(textTable(listing.query ? `Agents matching '${listing.query}'` : "NeMo Gym agents", ["agent", "composition", "variants", "ported", "description"], rows));
  return 0;
}

export function listModels(listing: ComponentListing, print: Print): number {
  const models = discoverModels(searchRoots({ extraRoots: listing.searchDir }));
  if (listing.name) {
    const entry = models.find((model) => model.name === listing.name);
    if (!entry) throw unknownComponent(listing.name, models.map((model) => model.name), "model");
    const details = { config: entry.configPath, ported: yesNo(entry.ported, "no app entrypoint here") };
    const usage = `gym env start --resources-server example_single_tool_call --model-type ${entry.name}`;
    print(renderInspection({ name: entry.name, type: "model", details, usage, ported: entry.ported }, listing.json));
    return 0;
  }
  let rows = models.map((model) => ({ name: model.name, model: model.name, model_group: model.modelGroup, ported: model.ported }));
  if (listing.query) rows = rows.filter((row) => fuzzyMatches(listing.query!, row.model, row.model_group));
  if (listing.json) return print(JSON.stringify(rows)), 0;
  if (rows.length === 0) return print(noMatches("models", listing.query)), 0;
  const table = rows.map((row) => [row.model, row.model_group, row.ported ? "yes" : "no"]);
  print(textTable(listing.query ? `Models matching '${listing.query}'` : "NeMo Gym models", ["Model", "Model group", "Ported"], table));
  return 0;
}

export function listResourcesServers(listing: ComponentListing, print: Print): number {
  let servers = discoverResourcesServers(searchRoots({ extraRoots: listing.searchDir }));
  if (listing.name) {
    const entry = servers.find((server) => server.name === listing.name);
    if (!entry) throw unknownComponent(listing.name, servers.map((server) => server.name), "resources server");
    const description = entry.value ? (entry.description ? `${entry.description}\nValue: ${entry.value}` : `Value: ${entry.value}`) : entry.description;
    const details = { config: entry.configPath, ported: yesNo(entry.ported, entry.missing.length ? `not here: ${entry.missing.join(", ")}` : null) };
    const usage = `gym env start --resources-server ${entry.name} --model-type vllm_model`;
    print(renderInspection({ name: entry.name, type: "resources server", domain: entry.domain, description, details, usage, ported: entry.ported }, listing.json));
    return 0;
  }
  if (listing.query) servers = servers.filter((server) => fuzzyMatches(listing.query!, server.name, server.domain, server.description));
  if (listing.json) return print(JSON.stringify(servers.map((s) => ({ name: s.name, domain: s.domain, description: s.description, ported: s.ported })))), 0;
  if (servers.length === 0) return print(noMatches("resources servers", listing.query)), 0;
  const title = listing.query ? `Resources servers matching '${listing.query}' (${servers.length})` : `Available resources servers (${servers.length})`;
  print(textTable(title, ["Name", "Domain", "Ported", "Description"], servers.map((s) => [s.name, s.domain ?? "", s.ported ? "yes" : "no", s.description ?? ""])));
  return 0;
}
