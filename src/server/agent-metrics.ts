// An agent's rollouts by outcome and failure class, read off each /run answer (its status and x-ng-failure-class):
// a route hook on /run alone, so the agent's code stays as it is and every agent (simple, aviary, …) is counted.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from "fastify";
import { Counter, type Registry } from "prom-client";
import { FAILURE_CLASS_HEADER, isInfrastructureFailureClass } from "../protocol/failures.ts";

const RUN_ROUTE = /(^|\/)run$/;

/**
 * `succeeded` (a 200: a verified rollout), `failed` with the class the agent reported (transport, timeout,
 * environment_unavailable, invalid_inner_answer), `failed`/`agent_error` for any other 5xx, `rejected`/`bad_request`
 * for a 4xx (the row's fault).
 */
export function outcomeOfRun(statusCode: number, failureClassHeader: unknown): { outcome: string; failure_class: string } {
  if (statusCode < 400) return { outcome: "succeeded", failure_class: "" };
  if (statusCode < 500) return { outcome: "rejected", failure_class: "bad_request" };
  return { outcome: "failed", failure_class: isInfrastructureFailureClass(failureClassHeader) ? failureClassHeader : "agent_error" };
}

/** Adds the counter, and its hook to every /run route registered after this call. */
export function registerRolloutMetrics(app: FastifyInstance, registry: Registry): void {
  const rollouts = new Counter({
    name: "gym_agent_rollouts_total",
    help: "Rollouts this agent's /run answered, by outcome and failure class",
    labelNames: ["outcome", "failure_class"] as const,
    registers: [registry],
  });
  const count = (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    rollouts.inc(outcomeOfRun(reply.statusCode, reply.getHeader(FAILURE_CLASS_HEADER)));
    done();
  };
  const aborted = (_request: FastifyRequest, done: HookHandlerDoneFunction) => {
    rollouts.inc({ outcome: "aborted", failure_class: "" });
    done();
  };
  app.addHook("onRoute", (route: RouteOptions) => {
    if (route.method !== "POST" || !RUN_ROUTE.test(route.url)) return;
    route.onResponse = [...hooksOf(route.onResponse), count];
    route.onRequestAbort = [...hooksOf(route.onRequestAbort), aborted];
  });
}

const hooksOf = <H>(hooks: H | H[] | undefined): H[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);
