// `gym view`: a local web page over rollouts files — the runs with their plots, the rollouts table, one rollout as a
// conversation, two runs compared — and the environment playground over a running graph's resources servers.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UserError } from "../config/errors.ts";
import { DEFAULT_HEAD_SERVER, headServerUrl } from "../client/running-graph.ts";
import { arg, defineCommand, flag, PORT } from "./command.ts";
import { runPathsOf } from "./view/viewed-run.ts";
import { startViewServer, type ViewServer } from "./view/view-server.ts";

/** The port when none is given; taken already, any free one is used instead (and printed). */
export const DEFAULT_VIEW_PORT = 11080;

export const viewCommand = defineCommand({
  path: ["view"],
  description: "serve a local web page over rollouts files (runs, plots, rollouts, comparisons) and an environment playground",
  examples: ["gym view results/*.jsonl", "gym view results/run.jsonl results/reverified.jsonl --port 8080"],
  args: { files: arg.variadic("rollouts JSONL files (their _failures.jsonl and _aggregate_metrics.json are read too); a file not written yet is watched for") },
  flags: {
    port: flag.number("port", `port (default ${DEFAULT_VIEW_PORT}, or a free one when that is taken; 0 picks a free one)`, PORT),
    host: flag.string("host", "bind address", { default: "127.0.0.1" }),
    headServer: flag.string("url", `the head server of the running graph whose resources servers the playground lists (default ${headServerUrl(DEFAULT_HEAD_SERVER)})`),
  },
  helpAfter: "\nThe page re-reads the files as they grow, so `gym view out.jsonl` during `gym eval run --output out.jsonl` shows the collection live.\n",
  async run(_config, { flags, print }) {
    const paths = runPathsOf(flags.files.map((file) => resolve(file)));
    const folder = paths.find((path) => existsSync(path) && statSync(path).isDirectory());
    if (folder) throw new UserError(`${folder} is a folder: give its rollouts files (gym view ${folder}/*.jsonl)`);
    const head = flags.headServer ?? headServerUrl(DEFAULT_HEAD_SERVER);
    if (!/^https?:\/\/[^/]+/.test(head) || !URL.canParse(head)) throw new UserError(`--head-server ${head}: not an http:// URL (e.g. http://127.0.0.1:11000)`);
    const options = { runPaths: paths, headServerUrl: head, host: flags.host };
    let server: ViewServer;
    try {
      server = await startViewServer({ ...options, port: flags.port ?? DEFAULT_VIEW_PORT });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
      // A port asked for is a promise to the user; only the default falls back to a free one.
      if (flags.port !== undefined) throw new UserError(`--port ${flags.port}: the port is in use on ${flags.host}; choose another (0 picks a free one)`);
      server = await startViewServer({ ...options, port: 0 });
    }
    print(`gym view: ${paths.length} run${paths.length === 1 ? "" : "s"} at ${server.url}/`);
    const signal = await new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    print(`gym view stopping (${signal})`);
    await server.close();
  },
});
