// NeMo Gym's hotpotqa_app.py: aviary's HotPotQA environment (search / lookup / submit_answer over Wikipedia) over
// HotPotQADataset's train split. Wikipedia is a search backend: the real site (deadlines, bounded 429/5xx retries,
// a request rate, a cache) or, with wikipedia_fixture_jsonl_fpath, a local file of search pages.
import { z } from "zod";
import { HttpError } from "../../src/protocol/errors.ts";
import { resolveUnderRoots, searchRoots } from "../../src/config/paths.ts";
import { aviaryResourcesServer, BaseAviaryConfigSchema } from "../../src/ports/aviary/resources-server.ts";
import { HotPotQADataset } from "../../src/ports/aviary/hotpotqa.ts";
import { wikipediaFixtureBackend, wikipediaSearchBackend, type WikipediaPage } from "../../src/ports/aviary/wikipedia.ts";
import type { SearchBackend } from "../../src/client/search-backend.ts";
import { AVIARY_REFUSED_KEYS } from "./refused.ts";

const HotPotQAConfig = BaseAviaryConfigSchema.and(
  z.looseObject({
    /** This port's key: hotpotqa/hotpot_qa (fullwiki, train) rows as JSONL {"id", "question", "answer", "level"}. */
    hotpotqa_jsonl_fpath: z.string().nullish(),
    /** This port's key: answer searches from this JSONL fixture ({"query", "results"}) instead of Wikipedia. */
    wikipedia_fixture_jsonl_fpath: z.string().nullish(),
    /** Wikipedia's search page (a mirror); default https://en.wikipedia.org/w/index.php. */
    wikipedia_search_url: z.string().nullish(),
    wikipedia_requests_per_second: z.number().positive().nullish(),
    /** A SQLite file caching search pages across runs; memory when absent. */
    wikipedia_cache_path: z.string().nullish(),
  }),
);

const resolvePath = (key: string, value: string) => {
  const { path, found, searched } = resolveUnderRoots(value, searchRoots());
  if (!found) throw new HttpError(501, `${key} '${value}' not found (looked at ${searched.join(", ")})`);
  return path;
};

// Every backend this module opened (one per instance started in this process), closed with its server.
const backends = new Set<SearchBackend<WikipediaPage>>();

export default aviaryResourcesServer({
  name: "HotPotQAResourcesServer",
  config: HotPotQAConfig,
  refusedConfigKeys: AVIARY_REFUSED_KEYS,
  dataset(config) {
    if (!config.hotpotqa_jsonl_fpath) {
      throw new HttpError(501, "HotPotQA questions: set hotpotqa_jsonl_fpath to a JSONL copy of hotpotqa/hotpot_qa (fullwiki, train: one {\"id\", \"question\", \"answer\"} per line); NeMo Gym downloads it from Hugging Face, this port reads a local file");
    }
    const rows = HotPotQADataset.readJsonl(resolvePath("hotpotqa_jsonl_fpath", config.hotpotqa_jsonl_fpath));
    const backend = config.wikipedia_fixture_jsonl_fpath
      ? wikipediaFixtureBackend(resolvePath("wikipedia_fixture_jsonl_fpath", config.wikipedia_fixture_jsonl_fpath))
      : wikipediaSearchBackend({ searchUrl: config.wikipedia_search_url ?? undefined, requestsPerSecond: config.wikipedia_requests_per_second, cachePath: config.wikipedia_cache_path });
    backends.add(backend);
    return new HotPotQADataset(rows, backend);
  },
  async close() {
    await Promise.allSettled([...backends].map((backend) => backend.close()));
    backends.clear();
  },
});
