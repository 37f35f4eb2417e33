// How a trial runs on a pre-started NeMo Gym agent: one `POST {agent_url}/run` per trial, and the
// abort → force → probe cleanup that decides whether a cancelled trial may end as anything but `failed`.
import { createHash } from "node:crypto";
import type { HttpClient, HttpResponse } from "../client/http-client.ts";
import { DeadlineExceededError, TransportError } from "../client/http-client.ts";
import { FAILURE_CLASS_HEADER } from "../protocol/failures.ts";
import type { Logger } from "../server/logger.ts";
import { captureArtifacts, wantsArtifacts } from "./artifacts.ts";
import { buildRunPayload, normalizeRunResult, type RunResult } from "./run-payload.ts";
import type { EnvironmentRegistration, JsonObject, TrialRequest } from "./types.ts";

export type CleanupCode = "cleanup_unverified" | "cleanup_failed" | "cleanup_probe_failed";
/** `confirmed` only on proof (a probe answering `{"clean": true}`); an acknowledged POST is not proof. */
export type CleanupStep = { confirmed: boolean; code?: CleanupCode };

export interface RunHandle {
  /** Resolves with the normalised /run result; rejects (agent_error) on non-2xx / non-JSON / transport failure. */
  result: Promise<RunResult>;
  /** Cancels the local /run request, then POSTs abort_url; never claims proof of cleanup. */
  abort(): Promise<CleanupStep>;
  forceCleanup(): Promise<CleanupStep>;
  probeCleanup(): Promise<CleanupStep>;
}

export interface RunAdapterOptions {
  http: HttpClient;
  /** Bound on each of abort, force and probe. */
  cleanupGraceS: number;
  /** Absolute; artifact capture is reported as unconfigured without it. */
  artifactRoot?: string;
  logger: Logger;
}

/** Why a trial's `/run` did not produce a result; the registry maps it to `agent_error`. */
export class AgentRunError extends Error {
  readonly code = "agent_error";
  /**
   * The failure's kind when it is known: the class the agent reported (`x-ng-failure-class` on its 500, or
   * `_ng_failure_class` in its body), `transport` / `timeout` for our own call to /run.
   */
  readonly failureClass: string | undefined;
  constructor(message: string, options?: { cause?: unknown; failureClass?: string }) {
    super(message, options);
    this.name = "AgentRunError";
    this.failureClass = options?.failureClass;
  }
}

const FAILURE_CLASS_PATTERN = /^[a-z][a-z0-9_]*$/;

/** The /run request was cancelled by our own abort(): its outcome no longer matters. */
export class RunCancelledError extends Error {
  constructor() {
    super("the /run request was cancelled by the gateway");
    this.name = "RunCancelledError";
  }
}

// /run has no timeout of its own: the trial deadline bounds it and the registry aborts the handle. This is
// only a backstop, the largest timer Node accepts (~24.8 days).
const RUN_BACKSTOP_MS = 2_147_483_647;
const READINESS_TIMEOUT_MS = 2000;
const BODY_EXCERPT_CHARS = 500;
const UNVERIFIED: CleanupStep = { confirmed: false, code: "cleanup_unverified" };

export class HttpRunAdapter {
  constructor(
    readonly registration: EnvironmentRegistration,
    private readonly options: RunAdapterOptions,
  ) {}

  /** Synchronous: allocates the handle and fires the POST, so the registry can register it under its lock. */
  start(request: TrialRequest, rolloutId: string): RunHandle {
    const localRun = new AbortController();
    const result = this.run(request, rolloutId, localRun.signal);
    // A cancelled trial's result is never awaited; its rejection must not become an unhandled one.
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    const cleanup = new RemoteCleanup(this.registration, this.options, rolloutId, request.request_id);
    return {
      result,
      abort: () =>
        cleanup.bounded("abort", "cleanup_failed", async () => {
          localRun.abort();
          await settled;
          return cleanup.post(this.registration.abort_url, "abort");
        }),
      forceCleanup: () => cleanup.bounded("force cleanup", "cleanup_failed", () => cleanup.post(this.registration.force_cleanup_url, "force cleanup")),
      probeCleanup: () => cleanup.bounded("cleanup probe", "cleanup_probe_failed", () => cleanup.probe()),
    };
  }

  /** Cleanup for a run this process did not start (e.g. reconciling after a gateway restart): by URL only. */
  handleFor(rolloutId: string): RunHandle {
    const cleanup = new RemoteCleanup(this.registration, this.options, rolloutId, undefined);
    return {
      result: new Promise<RunResult>(() => {}),
      abort: () => cleanup.bounded("abort", "cleanup_failed", () => cleanup.post(this.registration.abort_url, "abort")),
      forceCleanup: () => cleanup.bounded("force cleanup", "cleanup_failed", () => cleanup.post(this.registration.force_cleanup_url, "force cleanup")),
      probeCleanup: () => cleanup.bounded("cleanup probe", "cleanup_probe_failed", () => cleanup.probe()),
    };
  }

  /** Every readiness URL answers GET 2xx within 2 s. */
  async ready(): Promise<boolean> {
    const urls = this.registration.readiness_urls;
    if (urls.length === 0) return false;
    const answers = await Promise.all(
      urls.map((url) =>
        this.options.http.request(url, { method: "GET", deadlineMs: READINESS_TIMEOUT_MS, maxRetries: 0 }).then(
          (response) => response.ok,
          () => false,
        ),
      ),
    );
    return answers.every(Boolean);
  }

  private async run(request: TrialRequest, rolloutId: string, signal: AbortSignal): Promise<RunResult> {
    const redact = redactor(rolloutId);
    const payload = buildRunPayload(request, rolloutId);
    const url = `${this.registration.agent_url}/run`;
    this.options.logger.debug({ request_id: request.request_id, environment: this.registration.environment }, "starting /run");
    let response: HttpResponse;
    try {
      // No cookies are passed or kept: each run is its own Gym session. Never replayed (maxRetries 0).
      response = await this.options.http.request(url, { method: "POST", json: payload, deadlineMs: RUN_BACKSTOP_MS, maxRetries: 0, signal });
    } catch (error) {
      if (signal.aborted) throw new RunCancelledError();
      const failureClass = error instanceof DeadlineExceededError ? "timeout" : error instanceof TransportError ? "transport" : undefined;
      throw new AgentRunError(`${url} failed: ${redact((error as Error).message)}`, { cause: error, failureClass });
    }
    if (!response.ok) {
      const reported = response.headers[FAILURE_CLASS_HEADER];
      const failureClass = typeof reported === "string" && FAILURE_CLASS_PATTERN.test(reported) ? reported : undefined;
      throw new AgentRunError(`${url} answered HTTP ${response.status}${failureClass ? ` (${failureClass})` : ""}: ${redact(excerpt(response.text))}`, { failureClass });
    }
    let body: unknown;
    try {
      body = response.json();
    } catch {
      throw new AgentRunError(`${url} answered HTTP ${response.status} with a body that is not JSON: ${redact(excerpt(response.text))}`);
    }
    // The agent says the attempt failed (NeMo Gym's convention for a failure it typed itself): never a reward.
    const reported = isObject(body) ? body._ng_failure_class : undefined;
    if (typeof reported === "string") {
      const failureClass = FAILURE_CLASS_PATTERN.test(reported) ? reported : "agent_reported";
      const message = isObject(body) ? (body.error ?? body.message ?? "reported by the agent") : "";
      throw new AgentRunError(`${url} reported a failed attempt (${failureClass}): ${redact(excerpt(String(message)))}`, { failureClass });
    }
    let result: RunResult;
    try {
      result = normalizeRunResult(this.registration.environment, body);
    } catch (error) {
      throw new AgentRunError(`${url}: ${(error as Error).message}`);
    }
    if (!wantsArtifacts(request)) return result;
    return captureArtifacts(result, body as JsonObject, { artifactRoot: this.options.artifactRoot, requestId: request.request_id });
  }
}

/** The remote half of cleanup for one rollout: the configured URLs with `{rollout_id}` substituted. */
class RemoteCleanup {
  private readonly redact: (text: string) => string;
  /** The rollout id is a callback capability: logs carry a digest of it, never the id. */
  private readonly logFields: Record<string, string>;

  constructor(
    private readonly registration: EnvironmentRegistration,
    private readonly options: RunAdapterOptions,
    private readonly rolloutId: string,
    requestId: string | undefined,
  ) {
    this.redact = redactor(rolloutId);
    this.logFields = {
      ...(requestId === undefined ? {} : { request_id: requestId }),
      rollout_digest: createHash("sha256").update(rolloutId).digest("hex").slice(0, 12),
      environment: registration.environment,
    };
  }

  private get graceMs(): number {
    return this.options.cleanupGraceS * 1000;
  }

  private url(template: string): string {
    return template.replaceAll("{rollout_id}", encodeURIComponent(this.rolloutId));
  }

  /** Runs one step within the grace period; a timeout or an exception becomes `failureCode`. */
  async bounded(step: string, failureCode: CleanupCode, run: () => Promise<CleanupStep>): Promise<CleanupStep> {
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const timedOut = new Promise<CleanupStep>((resolve) => {
      timer = setTimeout(() => {
        expired = true;
        this.options.logger.warn(this.logFields, `${step} did not finish within ${this.options.cleanupGraceS} s`);
        resolve({ confirmed: false, code: failureCode });
      }, this.graceMs);
    });
    const attempted = run().catch((error: unknown): CleanupStep => {
      if (!expired) this.options.logger.warn({ ...this.logFields, error: this.redact(String((error as Error)?.message ?? error)) }, `${step} failed`);
      return { confirmed: false, code: failureCode };
    });
    try {
      return await Promise.race([attempted, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** abort and force: a 2xx only acknowledges that cleanup was accepted; the probe owns the proof. */
  async post(template: string | null, step: string): Promise<CleanupStep> {
    if (template === null) return UNVERIFIED;
    const response = await this.options.http.request(this.url(template), { method: "POST", deadlineMs: this.graceMs, maxRetries: 0 });
    if (response.ok) return UNVERIFIED;
    this.options.logger.warn({ ...this.logFields, status: response.status, url: template }, `${step} was refused`);
    return { confirmed: false, code: "cleanup_failed" };
  }

  async probe(): Promise<CleanupStep> {
    const template = this.registration.cleanup_probe_url;
    if (template === null) return UNVERIFIED;
    const failed: CleanupStep = { confirmed: false, code: "cleanup_probe_failed" };
    const response = await this.options.http.request(this.url(template), { method: "GET", deadlineMs: this.graceMs, maxRetries: 0 });
    if (!response.ok) {
      this.options.logger.warn({ ...this.logFields, status: response.status, url: template }, "cleanup probe was refused");
      return failed;
    }
    let answer: unknown;
    try {
      answer = response.json();
    } catch {
      this.options.logger.warn({ ...this.logFields, url: template }, "cleanup probe answered a body that is not JSON");
      return failed;
    }
    const clean = typeof answer === "object" && answer !== null && (answer as { clean?: unknown }).clean === true;
    return clean ? { confirmed: true } : UNVERIFIED;
  }
}

/**
 * The §1.7 sequence: abort → if unconfirmed force → if unconfirmed probe. Only the probe can confirm; when it
 * does not, a refused or failed abort/force is the reported cause (`cleanup_failed`), then the probe's own code.
 */
export async function cleanupRun(handle: RunHandle): Promise<CleanupStep> {
  // Handles from elsewhere (fakes, future adapters) may throw; that is a failed step, not a crashed cleanup.
  const attempt = (step: () => Promise<CleanupStep>, failureCode: CleanupCode) => step().catch((): CleanupStep => ({ confirmed: false, code: failureCode }));
  const abort = await attempt(() => handle.abort(), "cleanup_failed");
  if (abort.confirmed) return abort;
  const force = await attempt(() => handle.forceCleanup(), "cleanup_failed");
  if (force.confirmed) return force;
  const probe = await attempt(() => handle.probeCleanup(), "cleanup_probe_failed");
  if (probe.confirmed) return probe;
  if (abort.code === "cleanup_failed" || force.code === "cleanup_failed") return { confirmed: false, code: "cleanup_failed" };
  return { confirmed: false, code: probe.code ?? "cleanup_unverified" };
}

function redactor(rolloutId: string): (text: string) => string {
  return (text) => text.replaceAll(rolloutId, "{rollout_id}");
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const excerpt = (text: string) => (text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text);
