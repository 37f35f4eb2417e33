// Writes src/config/catalog/nemo-gym-catalogue.json from a NeMo Gym checkout: each environment, benchmark and
// resources-server workload NeMo Gym lists (found by this project's own catalogue reader, rooted at the checkout),
// as its name, kind, domain, licensing and the servers its config chain names — metadata only: NeMo Gym's own
// descriptions are its text, so they are not copied (a workload that is ported here has its own config).
//   node --import tsx scripts/nemo-gym-catalogue.ts /tmp/ng 07d6b0d
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { discoverCatalog, NEMO_GYM_INDEX_PATH, type NemoGymIndex } from "../src/config/catalog/index.ts";

const [checkout, commit] = process.argv.slice(2);
if (!checkout || !commit) {
  console.error("usage: scripts/nemo-gym-catalogue.ts <NeMo Gym checkout> <commit>");
  process.exit(2);
}
const entries = discoverCatalog([resolve(checkout)]);
const index: NemoGymIndex = {
  source: `NVIDIA-NeMo/Gym@${commit}`,
  entries: entries.map((entry) => ({
    name: entry.name,
    kind: entry.kind,
    domain: entry.domain,
    description: null,
    licensing: entry.licensing,
    requires: entry.requires,
  })),
};
// One entry a line: a regenerated index diffs by entry.
const lines = index.entries.map((entry) => `  ${JSON.stringify(entry)}`);
writeFileSync(NEMO_GYM_INDEX_PATH, `{"source": ${JSON.stringify(index.source)}, "entries": [\n${lines.join(",\n")}\n]}\n`);
console.log(`${index.entries.length} entries → ${NEMO_GYM_INDEX_PATH}`);
