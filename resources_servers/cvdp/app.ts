// CVDP (Verilog design problems). Code-comprehension categories (6, 8, 9, 10) are prose answers scored by BLEU/ROUGE
// against the row's reference (comprehension.ts). For the others the model's RTL — the files an agent wrote
// (`rtl_files`), else parsed out of its answer — runs in the task's harness; reward 1.0 iff the harness passes. CVDP's
// cocotb harnesses are not run (cocotb is not packaged by Debian): a 501 says so. What runs is this port's trace
// harness (harness.ts), simulated with Icarus Verilog in a bubblewrap sandbox, whose verdict a design cannot print.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { ServerContext } from "../../src/server/definition.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { responseOutputText, type NeMoGymResponse } from "../../src/protocol/index.ts";
import { pythonStrip, ZeroDivisionError } from "../../src/python/index.ts";
import { BubblewrapSandbox, type SandboxProvider } from "../../src/sandbox/index.ts";
import { parseModelResponse } from "./extract.ts";
import { findTools, iverilogRuntimes } from "./iverilog.ts";
import { harnessKind, runTraceHarness } from "./harness.ts";
import { CODE_COMPREHENSION_CATEGORIES, scoreComprehension } from "./comprehension.ts";

const Config = z.looseObject({
  /** Per-run wall clock in seconds (NeMo Gym: per compose service). */
  container_timeout: z.number().int().positive().default(600),
  /** Harness runs at once. */
  num_processes: z.number().int().positive().default(4),
  /** The workspace prefix of the paths in a harness's src/.env (`/code/rtl/x.sv`); the sandbox's work dir stands for it. */
  container_workspace: z.string().default("/code"),
  // Container images name the simulator in NeMo Gym; here the host's Icarus Verilog runs in bubblewrap, so they
  // choose nothing. Accepted (NeMo Gym's configs set them), and said at startup when set.
  oss_sim_image: z.string().nullish(),
  oss_pnr_image: z.string().nullish(),
  eda_sim_image: z.string().nullish(),
  /** Our own: where iverilog and vvp are, when not on PATH. */
  iverilog_path: z.string().nullish(),
  vvp_path: z.string().nullish(),
});
type CvdpConfig = z.output<typeof Config>;

const MetadataSchema = z.looseObject({
  task_id: z.string(),
  categories: z.array(z.string()).default([]),
  difficulty: z.string().default(""),
  target_files: z.array(z.string()).default([]),
  harness_files: z.record(z.string(), z.string().nullable()).default({}),
  context_files: z.record(z.string(), z.string()).default({}),
  subjective_reference: z.string().nullish(),
});

const sandboxes = new WeakMap<ServerContext<CvdpConfig>, SandboxProvider>();

/** The answer text, or (CVDP: when the message content is empty) the first reasoning item's summaries. */
function modelOutput(response: NeMoGymResponse): string {
  const text = responseOutputText(response);
  if (pythonStrip(text) !== "") return text;
  for (const item of response.output) {
    if (item.type !== "reasoning") continue;
    const summaries = ((item as { summary?: { text?: unknown }[] }).summary ?? []).map((s) => s.text).filter((t): t is string => typeof t === "string" && t !== "");
    if (summaries.length > 0) return summaries.join("\n");
  }
  return text;
}

export default resourcesServer({
  name: "CVDPResourcesServer",
  config: Config,
  refusedConfigKeys: {
    sandbox_provider: "this port runs harnesses in its bubblewrap sandbox, not an Apptainer/Docker provider",
    sandbox_spec: "provider-specific sandbox fields; the bubblewrap sandbox takes none",
    prepared_images: "compose `build:` services need OCI images; this port runs no containers",
    prepared_image_manifest: "compose `build:` services need OCI images; this port runs no containers",
    harness_workspace_dir: "the workspace is the sandbox's own tmpfs; nothing is written on the host",
    container_transfer_dir: "no workspace archive is transferred: files go straight into the sandbox",
    container_tmp_bind_path: "simulator temp files already go to the sandbox's private /tmp",
  },
  tools: {},
  verify: {
    input: z.object({ verifier_metadata: z.record(z.string(), z.unknown()), rtl_files: z.record(z.string(), z.string()).nullish() }),
    async run(_state, { response, verifier_metadata, rtl_files }, { config, server, signal }) {
      const parsed = MetadataSchema.safeParse(verifier_metadata);
      if (!parsed.success) throw new HttpError(422, `cvdp: verifier_metadata: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
      const meta = parsed.data;
      const [category = "", difficulty = ""] = meta.categories;
      const categoryNumber = Number.parseInt(category.slice(3), 10);
      const base = { task_id: meta.task_id, category, difficulty, extracted_rtl: null, container_exit_code: null, container_stderr: null, container_services: null, execution_time: 0.0, parse_failed: false, bleu_score: null, rouge_score: null };

      const answer = modelOutput(response);
      if (pythonStrip(answer) === "") return { reward: 0.0, ...base };
      if (CODE_COMPREHENSION_CATEGORIES.includes(categoryNumber)) {
        // NeMo Gym's subjective response leaves execution_time unset (None), unlike its other ones.
        const subjective = { ...base, execution_time: null };
        const reference = meta.subjective_reference ?? "";
        if (reference === "") return { reward: 0.0, ...subjective, container_stderr: "No subjective_reference provided for code-comprehension category" };
        try {
          return { ...subjective, ...scoreComprehension(categoryNumber, answer, reference) };
        } catch (error) {
          if (error instanceof ZeroDivisionError) server.log.error(`cvdp: task ${meta.task_id}: its subjective_reference has fewer than 2 words once punctuation is stripped, so CVDP's ROUGE-2 divides by zero (NeMo Gym answers 500 too)`);
          throw error;
        }
      }
      const rtl = rtl_files ?? parseModelResponse(answer, meta.target_files);
      if (!rtl) return { reward: 0.0, ...base, container_stderr: "parse_failed: could not extract RTL from model output", container_services: [], parse_failed: true };

      const harness = harnessKind(meta.harness_files);
      if (harness.kind === "none") return { reward: 0.0, ...base, extracted_rtl: rtl, container_exit_code: 1, container_stderr: harness.why, container_services: [] };
      if (harness.kind === "cocotb") {
        throw new HttpError(501, `cvdp: task ${meta.task_id} has a cocotb harness (src/.env MODULE=${harness.env.MODULE}); cocotb is not installed here (Debian does not package it, and the sandbox's Python has neither cocotb nor pytest), so CVDP's cocotb testbenches cannot run`);
      }
      findTools({ iverilog: config.iverilog_path, vvp: config.vvp_path });
      const sandbox = sandboxes.get(server as ServerContext<CvdpConfig>)!;
      const started = performance.now();
      const outcome = await runTraceHarness(sandbox, {
        env: harness.env,
        harnessFiles: meta.harness_files,
        contextFiles: meta.context_files,
        rtlFiles: rtl,
        workspace: config.container_workspace,
        wallMs: config.container_timeout * 1000,
        signal,
      });
      const stderr = outcome.candidate.timedOut ? `timed out after ${config.container_timeout} s` : outcome.candidate.stderr.slice(-4000);
      return {
        reward: outcome.passed ? 1.0 : 0.0,
        ...base,
        extracted_rtl: rtl,
        container_exit_code: outcome.passed ? 0 : 1,
        container_stderr: stderr,
        container_services: [{ service: "iverilog-trace", exit_code: outcome.candidate.exitCode, stderr, seed: outcome.seed }],
        execution_time: (performance.now() - started) / 1000,
      };
    },
  },
  floatFields: ["execution_time", "bleu_score", "rouge_score"],
  routes(app, server) {
    const { config } = server;
    for (const key of ["oss_sim_image", "oss_pnr_image", "eda_sim_image"] as const) {
      if (config[key]) server.log.info(`cvdp: ${key} is not used here: harnesses run the host's Icarus Verilog in a bubblewrap sandbox`);
    }
    // The runtime is resolved when the sandbox first starts: a missing iverilog is a 501 at verify, never a crash here.
    const sandbox = new BubblewrapSandbox({ runtimes: () => iverilogRuntimes({ iverilog: config.iverilog_path, vvp: config.vvp_path }), maxConcurrent: config.num_processes });
    sandboxes.set(server, sandbox);
    try {
      findTools({ iverilog: config.iverilog_path, vvp: config.vvp_path });
    } catch (error) {
      server.log.error((error as Error).message);
    }
    app.addHook("onClose", async () => sandbox.close());
  },
  reverifyMode: "stateless",
});
