// What the launcher and a server process say to each other over IPC (src/cli/launcher.ts, child-main.ts, and a
// co-located group's cluster primary in between, co-located-cluster.ts).
import type { SessionSigning } from "./session-cookie.ts";

export type LauncherMessage =
  | { type: "graph-secrets"; sessionSigning: SessionSigning; headToken: string }
  | { type: "config"; rawYaml: string };

export type ChildMessage =
  | { type: "listening"; instanceName: string; host: string; port: number; pid: number }
  | { type: "config-applied"; instanceName: string }
  /** A co-located group's worker is ready for the graph's secrets (co-located-cluster.ts). */
  | { type: "want-secrets" }
  /** `userError`: the instance's config is wrong (a bad field, a busy port): the message says what to change. */
  | { type: "failed"; instanceName: string; error: string; userError?: boolean };

