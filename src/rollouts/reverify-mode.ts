// Whether re-scoring against a resources server can be trusted, from what the server says of itself
// (GET /reverify_mode: stateless | unsupported | unknown), as NeMo Gym's _guard_reverify_mode asks it. NeMo Gym
// re-posts the stored response to /verify alone, so it refuses every server that is not `stateless`. Our
// default re-verification rebuilds the session first (/seed_session, the tool calls replayed) and reports
// replayed tool answers that differ, so there `unknown` is re-scored (with a note); `unsupported` — the
// server says re-scoring cannot work — is refused in both modes. `--force` overrides the refusal; the output
// then carries NeMo Gym's `unsafe_` prefix.
import type { ServerClient } from "../client/index.ts";
import { UserError } from "../config/errors.ts";

export const REVERIFY_MODES = ["stateless", "unsupported", "unknown"] as const;
export type ReverifyMode = (typeof REVERIFY_MODES)[number];

export const UNSAFE_OUTPUT_PREFIX = "unsafe_";

export async function reverifyModes(client: ServerClient, servers: Iterable<string>, deadlineMs: number): Promise<Map<string, ReverifyMode>> {
  const modes = new Map<string, ReverifyMode>();
  for (const server of [...new Set(servers)].sort()) {
    const answer = await client.get(server, "/reverify_mode", { deadlineMs });
    if (!answer.ok) throw new UserError(`${server}/reverify_mode answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    let mode: unknown;
    try {
      mode = answer.json();
    } catch {
      mode = undefined;
    }
    if (!REVERIFY_MODES.includes(mode as ReverifyMode)) throw new UserError(`${server}/reverify_mode answered ${answer.text.slice(0, 300)}, not one of ${REVERIFY_MODES.join(", ")}`);
    modes.set(server, mode as ReverifyMode);
  }
  return modes;
}

export interface GuardVerdict {
  /** Servers re-scored although they are not `stateless`, under --force: the output is prefixed `unsafe_`. */
  forcedWarning?: string;
  /** Servers re-scored with the session rebuilt although they do not say they are stateless. */
  note?: string;
}

/** NeMo Gym's guard; throws its refusal (a user error) unless `force`. */
export function guardReverifyModes(modes: ReadonlyMap<string, ReverifyMode>, options: { verifyOnly: boolean; force: boolean }): GuardVerdict {
  const refusedModes: readonly ReverifyMode[] = options.verifyOnly ? ["unsupported", "unknown"] : ["unsupported"];
  const refused = [...modes].filter(([, mode]) => refusedModes.includes(mode)).map(([server]) => server);
  const unknown = [...modes].filter(([server, mode]) => mode === "unknown" && !refused.includes(server)).map(([server]) => server);
  const note = unknown.length > 0 ? `(reverify) ${list(unknown)} report reverify_mode=unknown: re-scored with the session rebuilt (/seed_session and the tool calls replayed); NeMo Gym's verify-only reverify refuses them without --force` : undefined;
  if (refused.length === 0) return { note };
  const which = options.verifyOnly ? "UNSUPPORTED or UNKNOWN" : "UNSUPPORTED";
  if (!options.force) {
    throw new UserError(`Resource server(s) ${list(refused)} have reverify_mode=${which}. Rewards computed by reverification may be incorrect. Pass --force (++force=true) to override (output will be prefixed with '${UNSAFE_OUTPUT_PREFIX}').`);
  }
  return { note, forcedWarning: `WARNING: resource server(s) ${list(refused)} have reverify_mode=${which}. Rewards computed by reverification may be incorrect. Output is prefixed with '${UNSAFE_OUTPUT_PREFIX}'.` };
}

const list = (names: readonly string[]) => `[${names.map((n) => `'${n}'`).join(", ")}]`;
