// The thin client process: one Relax managed session → one gateway trial → RELAX_OUTPUT_JSON. SIGTERM/SIGINT
// (Relax's agent timeout kills the process group) abort the trial; any failure exits 1 so Relax drops the group.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describeTrialRequest } from "../protocol.ts";
import { redactForLog, redactText } from "../redact.ts";
import { buildTrialRequest } from "./build-request.ts";
import { loadClientConfig } from "./client-config.ts";
import { requiredEnv, type Env } from "./env.ts";
import { TrialCancelled } from "./errors.ts";
import { GatewayClient } from "./gateway-client.ts";
import { toRelaxOutput, writeRelaxOutput } from "./output.ts";
import { CANCELLED_MESSAGE, runTrial } from "./run-trial.ts";
import { readSessionInput } from "./session-input.ts";

export interface ThinClientOptions {
  /** Where diagnostics go (one line per call); stderr by default. */
  log?: (line: string) => void;
  /** Turn SIGTERM/SIGINT into a stop; on by default, off for in-process callers that pass `stop`. */
  handleSignals?: boolean;
  stop?: AbortSignal;
}

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** Runs one session from the environment; resolves with the process exit code (0 written, 1 failed). */
export async function runThinClient(env: Env = process.env, options: ThinClientOptions = {}): Promise<number> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const controller = new AbortController();
  const onStop = () => controller.abort();
  options.stop?.addEventListener("abort", onStop, { once: true });
  if (options.stop?.aborted) onStop();
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) for (const name of STOP_SIGNALS) process.on(name, onStop);
  // Whatever goes to the log is scrubbed of the two credentials the client holds.
  const secrets = [env.RELAX_SESSION_ID ?? "", env.NEMO_GYM_GATEWAY_TOKEN ?? ""];
  const verbose = env.NEMO_GYM_VERBOSE === "1";
  let client: GatewayClient | undefined;
  try {
    const outputPath = requiredEnv(env, "RELAX_OUTPUT_JSON");
    const sessionInput = await readSessionInput(requiredEnv(env, "RELAX_INPUT_JSON"));
    const config = loadClientConfig(env);
    const request = buildTrialRequest(sessionInput, env);
    if (verbose) log(redactText(`nemo_gym_verbose event=trial_request ${describeTrialRequest(request)}`, secrets));
    client = new GatewayClient(config);
    const snapshot = await runTrial({ client, request, stop: controller.signal, pollIntervalS: config.pollIntervalS, pollWaitS: config.pollWaitS });
    if (verbose) log(redactText(`nemo_gym_verbose event=trial_result ${JSON.stringify(redactForLog(snapshot))}`, secrets));
    // A stop that lands after the trial ended still means Relax has given up on this session: publish nothing.
    if (controller.signal.aborted) throw new TrialCancelled(CANCELLED_MESSAGE);
    await writeRelaxOutput(outputPath, toRelaxOutput(snapshot));
    return 0;
  } catch (error) {
    log(redactText(`NeMo Gym thin client failed: ${describeFailure(error)}`, secrets));
    return 1;
  } finally {
    if (handleSignals) for (const name of STOP_SIGNALS) process.off(name, onStop);
    options.stop?.removeEventListener("abort", onStop);
    await client?.close();
  }
}

const EXPECTED_FAILURES = new Set(["GatewayRequestError", "TrialCancelled", "TrialFailed", "ClientInputError", "TrialOutputError", "TrialProtocolError"]);

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return `unexpected error: ${String(error)}`;
  return EXPECTED_FAILURES.has(error.name) ? error.message : `unexpected ${error.name}: ${error.message}`;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(resolve(script))).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const exitCode = await runThinClient(process.env);
  // Exit now rather than on an idle event loop: the session is over either way, and a lingering socket must not
  // keep Relax's managed session open until its agent timeout.
  process.exit(exitCode);
}
