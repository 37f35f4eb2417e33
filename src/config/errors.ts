/** What went wrong, so callers (and tests) can branch without matching message text. */
export type ConfigErrorKind =
  | "yaml_syntax"
  | "file_not_found"
  | "malformed_config_paths"
  | "override"
  | "interpolation"
  | "missing_values"
  | "directive"
  | "server_ref"
  | "almost_server"
  | "no_server_instances"
  | "unknown_instance"
  | "invalid_config";

/**
 * A user mistake in configuration (typo, missing file, malformed value). The CLI prints only the message,
 * so every message names the file, key or path involved and what to do about it.
 */
export class ConfigError extends Error {
  readonly kind: ConfigErrorKind;
  /** Dotted paths the error is about (e.g. every unset `???` value). */
  readonly paths: readonly string[];

  constructor(message: string, kind: ConfigErrorKind = "invalid_config", options: { paths?: string[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConfigError";
    this.kind = kind;
    this.paths = options.paths ?? [];
  }
}
