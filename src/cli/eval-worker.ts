// `gym eval worker --queue redis://…`: runs the rollouts that `gym eval run --queue` runs put on that Redis,
// against a graph given as `gym eval run` takes it — `--config` to start one for the worker, or a running
// one found through its head server (`++head_server.port=…`). Ends on Ctrl-C / SIGTERM, giving its jobs back.
import { POSITIVE_INTEGER, POSITIVE_NUMBER, arg, configFlag, defineCommand, flag } from "./command.ts";
import { modelFlags, selectedConfig, selectorFlags, selectsConfig } from "./selector-flags.ts";
import { withServers } from "./server-session.ts";

export const evalWorkerCommand = defineCommand({
  path: ["eval", "worker"],
  description: "run the rollouts of `gym eval run --queue` runs from a Redis queue (BullMQ), on this machine's graph",
  examples: [
    "gym eval worker --queue redis://10.0.0.5:6379 --concurrency 64 ++head_server.port=11000",
    "gym eval worker --queue redis://10.0.0.5:6379 --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml --config responses_api_models/scripted_model/configs/scripted_model.yaml",
  ],
  legacyNames: {},
  args: { overrides: arg.overrides() },
  flags: {
    queue: flag.string("redis://…", "the Redis the coordinators (`gym eval run --queue`) put their runs on", { required: true }),
    config: configFlag("a config YAML (repeatable); its servers are started for the worker"),
    ...selectorFlags,
    serve: flag.negated("use servers that are already running (found through the head server)"),
    concurrency: flag.number("n", "rollouts in flight at most, per run (default 16)", POSITIVE_INTEGER),
    name: flag.string("name", "how the coordinator's progress names this worker (default host:pid)"),
    lockDuration: flag.number("seconds", "how long a killed worker's jobs stay locked before another worker takes them over (default 30)", POSITIVE_NUMBER),
    ...modelFlags,
  },
  toConfig: (flags) => {
    const selected = selectedConfig(flags);
    return { configPaths: selected.configPaths, overrides: flags.overrides, flagOverrides: selected.flagOverrides };
  },
  async run({ raw, resolved }, { flags, print, warn }) {
    // BullMQ and ioredis load only here; a bad URL or an unreachable Redis is one line before any server starts.
    const { parseQueueUrl, checkRedisReachable, serveQueue } = await import("../rollouts/queue/index.ts");
    const address = parseQueueUrl(flags.queue);
    await checkRedisReachable(address);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      await withServers({ raw, resolved, serve: flags.serve && selectsConfig(flags), log: warn }, ({ client, config, stopSignal }) => {
        stopSignal.addEventListener("abort", onSignal, { once: true });
        return serveQueue({
          address,
          client,
          config,
          concurrency: flags.concurrency ?? 16,
          name: flags.name,
          lockDurationMs: (flags.lockDuration ?? 30) * 1000,
          signal: stop.signal,
          print,
          warn,
        });
      });
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
});
