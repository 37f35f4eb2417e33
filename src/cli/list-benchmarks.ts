// `gym list benchmarks [NAME]` (NeMo Gym's ng_list_benchmarks): the benchmark half of the catalogue.
import { arg, defineCommand, flag } from "./command.ts";
import { listCatalog, searchDirFlag } from "./list-environments.ts";

export const listBenchmarksCommand = defineCommand({
  path: ["list", "benchmarks"],
  description: "list or inspect the benchmarks, with whether each is ported here",
  examples: ["gym list benchmarks", "gym list benchmarks gpqa --json"],
  legacyNames: { ng_list_benchmarks: [] },
  args: { name: arg.optional("inspect this benchmark instead of listing all") },
  flags: { ported: flag.boolean("only benchmarks this project can run"), json: flag.boolean("print JSON"), searchDir: searchDirFlag() },
  run: (_config, { flags, print, warn }) => listCatalog({ ...flags, kind: "benchmark", ported: flags.ported ? true : undefined }, print, warn),
});
