// `gym search [TYPE] QUERY`: a listing narrowed to what matches QUERY (a substring, or a close match to a name,
// a word of it, a domain or a description); TYPE defaults to the environment and benchmark catalogue.
import { UserError } from "../config/errors.ts";
import { arg, defineCommand, flag } from "./command.ts";
import { listAgents, listModels, listResourcesServers } from "./list-components.ts";
import { listCatalog, searchDirFlag } from "./list-environments.ts";

export const SEARCHABLE_TYPES = ["benchmarks", "environments", "agents", "models", "resources-servers"] as const;

export const searchCommand = defineCommand({
  path: ["search"],
  description: "search a component type (default: environments and benchmarks) by name, domain or description",
  examples: ["gym search math", "gym search benchmarks gpqa --json", "gym search agents simple"],
  args: { terms: arg.variadic(`[TYPE] QUERY; TYPE is one of ${SEARCHABLE_TYPES.join(", ")}`) },
  flags: { json: flag.boolean("print JSON"), searchDir: searchDirFlag() },
  run(_config, { flags, print, warn }) {
    const { type, query } = searchTerms(flags.terms);
    const listing = { query, json: flags.json, searchDir: flags.searchDir };
    switch (type) {
      case "agents":
        return listAgents(listing, print);
      case "models":
        return listModels(listing, print);
      case "resources-servers":
        return listResourcesServers(listing, print);
      case "benchmarks":
        return listCatalog({ ...listing, kind: "benchmark" }, print, warn);
      case "environments":
        return listCatalog({ ...listing, kind: "environment" }, print, warn);
      default:
        return listCatalog(listing, print, warn);
    }
  },
});

function searchTerms(terms: readonly string[]): { type?: (typeof SEARCHABLE_TYPES)[number]; query: string } {
  if (terms.length === 1) return { query: terms[0]! };
  if (terms.length === 2) {
    const type = SEARCHABLE_TYPES.find((candidate) => candidate === terms[0]);
    if (!type) throw new UserError(`gym search: '${terms[0]}' is not a component type (choose from ${SEARCHABLE_TYPES.join(", ")}); quote a query of several words.`);
    return { type, query: terms[1]! };
  }
  throw new UserError(`gym search takes [TYPE] QUERY, got ${terms.length} words${terms.length > 2 ? "; quote a query of several words" : ""}.`);
}
