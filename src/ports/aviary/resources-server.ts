// NeMo Gym's AviaryResourcesServer (resources_servers/aviary/app.py): an aviary TaskDataset behind four routes.
//   POST /seed_session {task_idx}        → a new environment, reset: {env_id, obs, tools}
//   POST /step {env_id, action}          → the model's function calls run in it: {obs, reward, done}
//   POST /verify {…, response.env_id}    → the row with reward = the sum of that environment's step rewards
//   POST /close {env_id}                 → {message, success}
// Environments are addressed by env_id in the body, not by the session cookie. One left unclosed is dropped after
// `session_idle_ttl_s` (NeMo Gym keeps it for the life of the process); its reward total is kept as long.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { AggregateMetricsRequestSchema } from "../../protocol/index.ts";
import { HttpError } from "../../protocol/errors.ts";
import { computeAggregateMetrics } from "../../metrics/index.ts";
import { defineServer, parseBody, type ServerContext, type ServerDefinition } from "../../server/index.ts";
import { PyException } from "../../python/exception.ts";
import { jsonLoads } from "../../python/json-value.ts";
import type { AviaryEnvironment, Observation, TaskDataset, ToolInfo } from "./environment.ts";

const SeedSessionSchema = z.looseObject({ task_idx: z.number().int() });
const FunctionCallSchema = z.looseObject({
  arguments: z.string(),
  call_id: z.string(),
  name: z.string(),
  type: z.literal("function_call"),
  id: z.string().nullish(),
  status: z.string().nullish(),
});
const StepSchema = z.object({ env_id: z.string(), action: z.array(FunctionCallSchema) });
const CloseSchema = z.object({ env_id: z.string() });
const VerifySchema = z.looseObject({
  responses_create_params: z.looseObject({}),
  response: z.looseObject({ env_id: z.string(), group_id: z.string(), contains_transitions: z.boolean(), output: z.array(z.unknown()) }),
});

export const BaseAviaryConfigSchema = z.looseObject({
  host: z.string().nullish(),
  port: z.number().int().nullish(),
  entrypoint: z.string().nullish(),
  domain: z.string().nullish(),
  /** Unclosed environments (and reward totals) untouched this long are dropped. */
  session_idle_ttl_s: z.number().positive().default(3600),
});

export interface AviaryServerSpec<Config> {
  /** NeMo Gym's class name (GSM8kResourcesServer, …). */
  name: string;
  config: z.ZodType<Config>;
  refusedConfigKeys?: Readonly<Record<string, string>>;
  /** The dataset, built once on first use (a dataset that cannot be had throws an HttpError 501 naming what is missing). */
  dataset(config: Config, context: ServerContext<Config>): TaskDataset | Promise<TaskDataset>;
  close?(): Promise<void>;
}

/** `tool_to_function_tool_param`: the aviary tool as an OpenAI function tool, strict, additionalProperties false. */
export function functionToolParam(tool: ToolInfo): Record<string, unknown> {
  const parameters = { ...tool.parameters };
  if (!("additionalProperties" in parameters)) parameters.additionalProperties = false;
  return { name: tool.name, parameters, strict: true, type: "function", description: tool.description };
}

/**
 * `obs_msg_to_nemo_gym`: a message whose content is a JSON list becomes one message per text part (other parts,
 * images, are dropped), as NeMo Gym does for Qwen3's chat template; an environment-state message keeps
 * `is_env_state: true` so the agent can collapse it.
 */
export function messageToNemoGym(message: Extract<Observation, { kind: "message" }>): Record<string, unknown>[] {
  let content: unknown = message.content;
  try {
    content = jsonLoads(message.content);
  } catch {
    content = message.content;
  }
  let parts: unknown[];
  if (Array.isArray(content)) {
    parts = content.filter((part) => (part as Record<string, unknown>)?.type === "text").map((part) => (part as Record<string, unknown>).text);
  } else parts = [content];
  return parts.map((text) => {
    // NeMoGymEasyInputMessage.model_validate: content must be a string here.
    if (typeof text !== "string") throw new PyException("ValidationError", `observation content must be a string, got ${JSON.stringify(text)}`);
    return message.envState ? { content: text, role: message.role, type: "message", is_env_state: true } : { content: text, role: message.role, type: "message" };
  });
}

export function observationsToNemoGym(obs: Observation[]): Record<string, unknown>[] {
  return obs.flatMap((o) => (o.kind === "tool_response" ? [{ call_id: o.toolCallId, output: o.content, type: "function_call_output", id: null, status: null }] : messageToNemoGym(o)));
}

interface LiveEnvironment {
  env: AviaryEnvironment;
  touchedAt: number;
}

export function aviaryResourcesServer<Config extends { session_idle_ttl_s: number }>(spec: AviaryServerSpec<Config>): ServerDefinition<Config> {
  return defineServer<Config>({
    serverType: "resources_servers",
    className: spec.name,
    configSchema: spec.config,
    refusedConfigKeys: spec.refusedConfigKeys,
    register(app, context) {
      const ttlMs = context.config.session_idle_ttl_s * 1000;
      const environments = new Map<string, LiveEnvironment>();
      const totals = new Map<string, { reward: number; touchedAt: number }>();
      let dataset: Promise<TaskDataset> | undefined;
      const datasetOnce = () => {
        // A failed load is retried on the next request (the file may be put in place meanwhile).
        dataset ??= Promise.resolve(spec.dataset(context.config, context)).catch((error) => {
          dataset = undefined;
          throw error;
        });
        return dataset;
      };

      const sweep = setInterval(() => {
        const cutoff = Date.now() - ttlMs;
        for (const [id, live] of environments) {
          if (live.touchedAt < cutoff) {
            environments.delete(id);
            void live.env.close().catch(() => {});
          }
        }
        for (const [id, total] of totals) if (total.touchedAt < cutoff) totals.delete(id);
      }, Math.min(ttlMs, 60_000));
      sweep.unref();
      app.addHook("onClose", async () => {
        clearInterval(sweep);
        await Promise.allSettled([...environments.values()].map((live) => live.env.close()));
        environments.clear();
        await spec.close?.();
      });

      const signalOf = (reply: { raw: NodeJS.EventEmitter & { writableFinished: boolean } }) => {
        const controller = new AbortController();
        reply.raw.once("close", () => {
          if (!reply.raw.writableFinished) controller.abort(new Error("the caller disconnected"));
        });
        return controller.signal;
      };

      app.get("/tools", async () => []);

      app.post("/seed_session", async (request, reply) => {
        const { task_idx } = parseBody(SeedSessionSchema, request);
        const env = await (await datasetOnce()).newEnvironment(task_idx);
        const envId = randomUUID();
        environments.set(envId, { env, touchedAt: Date.now() });
        const { obs, tools } = await env.reset(signalOf(reply));
        return { env_id: envId, obs: observationsToNemoGym(obs), tools: tools.map(functionToolParam) };
      });

      app.post("/step", async (request, reply) => {
        const { env_id, action } = parseBody(StepSchema, request);
        const live = environments.get(env_id);
        if (!live) throw new HttpError(404, `env_id '${env_id}': no open environment (never seeded, closed, or idle past session_idle_ttl_s)`);
        live.touchedAt = Date.now();
        const calls = [];
        for (const call of action) {
          let parsed: unknown;
          try {
            parsed = jsonLoads(call.arguments);
          } catch {
            // NeMo Gym answers a step with unparsable arguments without running anything.
            return { obs: [{ content: "Invalid tool call arguments (not a valid JSON)", role: "user", type: "message" }], reward: 0.0, done: false };
          }
          if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
            // aviary's ToolCallFunction wants a dict: pydantic's ValidationError, which NeMo Gym re-raises.
            throw new PyException("ValidationError", `1 validation error for ToolCallFunction\narguments\n  Input should be a valid dictionary`);
          }
          calls.push({ id: call.call_id, name: call.name, arguments: parsed as Record<string, unknown> });
        }
        const { obs, reward, done } = await live.env.step(calls, signalOf(reply));
        const total = totals.get(env_id) ?? { reward: 0, touchedAt: 0 };
        totals.set(env_id, { reward: total.reward + reward, touchedAt: Date.now() });
        return { obs: observationsToNemoGym(obs), reward, done };
      });

      app.post("/verify", async (request) => {
        const body = parseBody(VerifySchema, request);
        // A defaultdict in NeMo Gym: an environment that never stepped scores 0.0.
        const reward = totals.get(body.response.env_id)?.reward ?? 0.0;
        return { ...body, reward };
      });

      app.post("/close", async (request) => {
        const { env_id } = parseBody(CloseSchema, request);
        const live = environments.get(env_id);
        if (!live) return { message: `KeyError('${env_id}')`, success: false };
        environments.delete(env_id);
        try {
          await live.env.close();
        } catch (error) {
          return { message: error instanceof PyException ? error.repr() : `${(error as Error).name}('${(error as Error).message}')`, success: false };
        }
        return { message: "Success", success: true };
      });

      app.post("/aggregate_metrics", async (request) => {
        const { verify_responses } = parseBody(AggregateMetricsRequestSchema, request);
        return computeAggregateMetrics(verify_responses);
      });
    },
  });
}

/** A configured entrypoint this port does not run: the start fails naming it and why. */
export function refusedAviaryEntrypoint(className: string, entrypoint: string, why: string): ServerDefinition {
  return defineServer({
    serverType: "resources_servers",
    className,
    configSchema: z.looseObject({}),
    register() {
      throw new HttpError(501, `resources_servers/aviary/${entrypoint} (${className}) is not ported: ${why}`);
    },
  });
}
