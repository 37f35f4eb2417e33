// What an app.ts exports: a server definition that the launcher (or a test) turns into a running server.
import type { FastifyInstance } from "fastify";
import type { z } from "zod";
import type { ConfigDict } from "../config/index.ts";
import type { ServerClient } from "../client/server-client.ts";
import type { HttpResponse } from "../client/http-client.ts";
import type { Registry } from "prom-client";
import type { Logger } from "./logger.ts";

export type ServerType = "resources_servers" | "responses_api_agents" | "responses_api_models";

export interface ServerContext<Config> {
  /** The top-level YAML key of this instance. */
  instanceName: string;
  /** This instance's fields, validated by the definition's config schema. */
  config: Config;
  /** The whole resolved global config (every instance, every top-level key). */
  globalConfig: ConfigDict;
  /** Addresses other Gym servers by instance name. */
  client: ServerClient;
  log: Logger;
  /**
   * This server's own routes that its code calls without HTTP (an agent's /run calling its /v1/responses): the
   * same answer the route gives over HTTP, as an HttpResponse. Absent where a server has none.
   */
  self?: SelfRoutes;
  /** This server's Prometheus registry (GET /metrics): where a server's code registers its own metrics. */
  metrics: Registry;
}

export interface SelfRoutes {
  /** POST `path` to this server in-process; undefined when `path` is not one of the routes it runs so. */
  post(path: string, request: { json: unknown; cookies: Record<string, string>; signal: AbortSignal }): Promise<HttpResponse> | undefined;
}

export interface ServerDefinition<Config = any> {
  readonly kind: "gym-server";
  readonly serverType: ServerType;
  /** The Python class name NeMo Gym uses for this server: the cookie is `<className>___<instance>`. */
  readonly className: string;
  readonly configSchema: z.ZodType<Config>;
  /**
   * NeMo Gym config keys of this server that this port does not implement, each with why: an instance setting one
   * (to anything but null or false) fails to start, naming it. Keys neither here nor in `configSchema` warn.
   */
  readonly refusedConfigKeys?: Readonly<Record<string, string>>;
  /** Model servers strip an `/ng-rollout/<id>` prefix before routing. */
  readonly stripRolloutPrefix?: boolean;
  register(app: FastifyInstance, context: ServerContext<Config>): void | Promise<void>;
  /** Called when the server stops (close pools, dispose sandboxes). */
  close?(context: ServerContext<Config>): void | Promise<void>;
}

export function defineServer<Config>(definition: Omit<ServerDefinition<Config>, "kind">): ServerDefinition<Config> {
  return { kind: "gym-server", ...definition };
}

export function isServerDefinition(value: unknown): value is ServerDefinition {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "gym-server";
}
