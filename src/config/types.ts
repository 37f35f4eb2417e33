// Shared types and key names of the global config.

/** A parsed config mapping (what a YAML mapping becomes). */
export type ConfigDict = Record<string, unknown>;

/** The three kinds of Gym servers; each is also the folder that holds its implementations. */
export const SERVER_TYPES = ["resources_servers", "responses_api_agents", "responses_api_models"] as const;
export type ServerType = (typeof SERVER_TYPES)[number];

/** A reference from one server to another: `{type: <server type>, name: <instance name>}`. */
export interface ServerRef {
  type: ServerType;
  name: string;
}

/** One runnable server block of the merged config, located on disk. */
export interface ServerInstance {
  /** Top-level key of the block; servers address each other by it. */
  instanceName: string;
  serverType: ServerType;
  /** Folder name under `<root>/<serverType>/`. */
  implementation: string;
  /**
   * The implementation's own fields (`entrypoint`, `host`, `port`, …). This is the live object inside the
   * config passed to `listServerInstances`, so writing `fields.port` updates that config.
   */
  fields: ConfigDict;
  /** Absolute path of `<root>/<serverType>/<implementation>`. */
  dirPath: string;
  /** Absolute path of the file to run (an `app.py` entrypoint maps to `app.ts` when no `app.py` exists). */
  entrypointPath: string;
}

export interface ConfigLogger {
  warn(msg: string): void;
}

export const MISSING_VALUE = "???";

export const CONFIG_PATHS_KEY = "config_paths";
export const HEAD_SERVER_KEY = "head_server";
export const DEFAULT_HOST_KEY = "default_host";
export const DEFAULT_HEAD_SERVER_PORT = 11000;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT_RANGE_LOW = 10_001;
export const DEFAULT_PORT_RANGE_HIGH = 20_000;
export const EXTRA_ROOTS_ENV_VAR = "NEMO_GYM_EXTRA_ROOTS";

export const INHERIT_FROM_KEY = "_inherit_from";
export const COPY_KEY = "_copy";
export const DELETE_KEY_KEY = "_delete_key";

/** Top-level keys that are never server instances (NeMo Gym's reserved list, PIN). */
export const RESERVED_TOP_LEVEL_KEYS: ReadonlySet<string> = new Set([
  "config_paths",
  "entrypoint",
  "default_host",
  "head_server",
  "disallowed_ports",
  "head_server_deps",
  "python_version",
  "pip_install_verbose",
  "use_absolute_ip",
  "uv_pip_set_python",
  "skip_venv_if_present",
  "hf_token",
  "ray_head_node_address",
  "port_range_low",
  "port_range_high",
  "dry_run",
  "uv_cache_dir",
  "uv_venv_dir",
  "_inherit_from",
  "_copy",
  "nemo_gym_log_dir",
  "verbose",
  "json",
  "query",
  "observability_enabled",
  "model_call_capture_dir",
  "component_name",
  // The judge path's knobs (ours: src/server/judge.ts).
  "judge_max_retries",
  "judge_retry_backoff_ms",
  "judge_max_concurrency",
  "judge_timeout_seconds",
  "judge_cache_path",
  // Where traces are exported (OTLP/HTTP base URL; src/metrics/tracing.ts). Unset: no tracing.
  "otel_exporter_otlp_endpoint",
  // Servers that share one process and call each other in-process (ours: src/config/co-located.ts).
  "co_located",
  "co_located_processes",
]);

export function isServerType(value: unknown): value is ServerType {
  return typeof value === "string" && (SERVER_TYPES as readonly string[]).includes(value);
}
