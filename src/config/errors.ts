/**
 * A mistake the user can fix (a missing flag, an unreadable file, a typo in a config or an override): the CLI
 * prints its message alone, as one line, and exits 2. Every other error is a bug and keeps its stack trace.
 * It lives on this low floor so that every floor that detects user mistakes (config, rollouts, …) can raise it.
 */
export class UserError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UserError";
  }
}

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
  | "unavailable_server"
  | "invalid_config";

/**
 * A user mistake in configuration (typo, missing file, malformed value). The CLI prints only the message,
 * so every message names the file, key or path involved and what to do about it.
 */
export class ConfigError extends UserError {
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
