// A collector in its own process, for tests that kill it: `COLLECT_CHILD` holds the global config of the
// running servers and the collectRollouts options (JSON). Exits 0 when the collection completes.
import { ServerClient } from "../../src/client/index.ts";
import { collectRollouts, type CollectOptions } from "../../src/rollouts/collect.ts";

const { globalConfig, options } = JSON.parse(process.env.COLLECT_CHILD ?? "{}") as { globalConfig: Record<string, unknown>; options: Omit<CollectOptions, "client"> };
const client = new ServerClient({ globalConfig });
try {
  const summary = await collectRollouts({ ...options, client, runConfig: globalConfig, progressStream: process.stderr });
  process.stdout.write(`summary ${JSON.stringify({ succeeded: summary.succeeded, failed: summary.failed, total: summary.total })}\n`);
} finally {
  await client.close();
}
