// `npm run bench [suite…]`: runs the benchmark suites, prints their tables, and stores the run as
// bench/last-run.json (not committed). Figures come from this machine; compare ratios, not absolutes.
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { collectionBench, formatCollection } from "./collection.ts";
import { formatModelProxy, modelProxyBench } from "./model-proxy.ts";
import { formatGateway, gatewayBench } from "./gateway.ts";
import { formatVerify, verifyBench } from "./verify.ts";
import { formatSandbox, sandboxBench } from "./sandbox.ts";
import { codeBench, formatCode } from "./code.ts";
import { abCollection, formatAb } from "./ab.ts";
import { formatQueue, queueBench } from "./queue.ts";
import { formatWrk, wrkBench } from "./wrk-load.ts";

const suites: Record<string, { title: string; run: () => Promise<{ result: unknown; text: string }> }> = {
  "model-proxy": {
    title: "Model proxy: per-hop overhead (plain request, 65k-token training response)",
    async run() {
      const result = await modelProxyBench();
      return { result, text: formatModelProxy(result) };
    },
  },
  collection: {
    title: "Rollout collection: environment + simple_agent + scripted_model, one process each, collectRollouts here",
    async run() {
      const result = await collectionBench();
      return { result, text: formatCollection(result) };
    },
  },
  wrk: {
    title: "Load from wrk (one fixed row posted to /run) against `gym env start`: separate processes, co-located ×1 and ×cores; servers' CPU",
    async run() {
      const result = await wrkBench();
      return { result, text: formatWrk(result) };
    },
  },
  queue: {
    title: "Collection over a Redis queue (BullMQ): one graph, 1 / 2 / 4 `gym eval worker` processes, the coordinator here; a local run for reference",
    async run() {
      const result = await queueBench();
      return { result, text: formatQueue(result) };
    },
  },
  gateway: {
    title: "Trial gateway: callback-bridge hop, and trials/s from create to terminal per state backend",
    async run() {
      const result = await gatewayBench();
      return { result, text: formatGateway(result) };
    },
  },
  verify: {
    title: "Verify latency per answer-verification environment (verify() alone, and POST /verify over loopback)",
    async run() {
      const result = await verifyBench();
      return { result, text: formatVerify(result) };
    },
  },
  sandbox: {
    title: "Sandbox: one bubblewrap run per program (python3 -c pass, a 10-case code_gen-style verify, throughput per concurrency limit)",
    async run() {
      const result = await sandboxBench();
      return { result, text: formatSandbox(result) };
    },
  },
  code: {
    title: "Code environments over HTTP: code_gen verifies/s per concurrency and num_processes, math_with_code call 1 vs 5 of a session, spider2_lite and evalplus /verify",
    async run() {
      const result = await codeBench();
      return { result, text: formatCode(result) };
    },
  },
};

const USAGE = (): string =>
  [
    "usage: npm run bench [-- --help] [suite…]   (no suite: all of them; the run is stored in bench/last-run.json)",
    "       npm run bench collection -- --ab <rev> [--rounds N]   (A/B: that commit's collection suite vs this tree's, alternating)",
    "       npm run bench wrk -- --ab <rev> [--rounds N]          (A/B: that commit's servers vs this tree's under the same wrk load)",
    "",
    "suites:",
    ...Object.entries(suites).map(([name, suite]) => `  ${name.padEnd(12)} ${suite.title}`),
    "",
  ].join("\n");

/** `--ab <rev>` and `--rounds N`, taken out of the arguments (the rest are suite names). */
function abOptions(args: string[]): { suites: string[]; ab?: string; rounds: number } {
  const suites: string[] = [];
  let ab: string | undefined;
  let rounds = 2;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--ab") ab = args[++i];
    else if (args[i] === "--rounds") rounds = Number(args[++i]);
    else suites.push(args[i]!);
  }
  if (ab === "" || (args.includes("--ab") && ab === undefined)) throw new Error("--ab needs a commit (e.g. --ab main)");
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds needs a whole number ≥ 1");
  return { suites, ab, rounds };
}

async function main(args: string[]) {
  if (args.some((arg) => arg === "--help" || arg === "-h" || arg === "help")) {
    process.stdout.write(USAGE());
    return;
  }
  let options: ReturnType<typeof abOptions>;
  try {
    options = abOptions(args);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE()}`);
    process.exitCode = 2;
    return;
  }
  const selected = options.suites;
  if (options.ab !== undefined && selected.length === 1 && selected[0] === "wrk") {
    // Both trees' own `gym env start` under one wrk driver (bench/wrk-load.ts).
    process.stdout.write(`machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}\n\n## wrk A/B\n\n`);
    const result = await wrkBench({ ab: options.ab, rounds: options.rounds });
    process.stdout.write(`${formatWrk(result)}\n`);
    const path = fileURLToPath(new URL("./last-run.json", import.meta.url));
    writeFileSync(path, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, wrk_ab: result }, null, 2) + "\n");
    process.stdout.write(`\nstored ${path}\n`);
    return;
  }
  if (options.ab !== undefined) {
    // A/B runs the collection suite (bench/ab.ts: each side in its own child process) or the wrk suite (above).
    if (selected.some((name) => name !== "collection")) {
      process.stderr.write("bench: --ab compares the collection suite (npm run bench collection -- --ab <rev>) or the wrk suite (npm run bench wrk -- --ab <rev>)\n");
      process.exitCode = 2;
      return;
    }
    process.stdout.write(`machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}\n\n## Collection A/B\n\n`);
    const result = await abCollection(options.ab, options.rounds);
    process.stdout.write(`${formatAb(result)}\n`);
    const path = fileURLToPath(new URL("./last-run.json", import.meta.url));
    writeFileSync(path, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, collection_ab: result }, null, 2) + "\n");
    process.stdout.write(`\nstored ${path}\n`);
    return;
  }
  const names = selected.length > 0 ? selected : Object.keys(suites);
  const unknown = names.filter((name) => !suites[name]);
  if (unknown.length > 0) {
    // A mistyped name is the user's error: one line and the list, not a stack trace.
    process.stderr.write(`bench: unknown suite(s) ${unknown.join(", ")}\n\n${USAGE()}`);
    process.exitCode = 2;
    return;
  }
  const run: Record<string, unknown> = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, cpu_model: cpus()[0]?.model };
  process.stdout.write(`machine: ${run.cpus} cores, ${run.cpu_model ?? "unknown CPU"}, Node ${run.node}\n`);
  for (const name of names) {
    const suite = suites[name]!;
    process.stdout.write(`\n## ${suite.title}\n\n`);
    const { result, text } = await suite.run();
    process.stdout.write(`${text}\n`);
    run[name] = result;
  }
  const path = fileURLToPath(new URL("./last-run.json", import.meta.url));
  writeFileSync(path, JSON.stringify(run, null, 2) + "\n");
  process.stdout.write(`\nstored ${path}\n`);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
