// Icarus Verilog inside the sandbox: a runtime (in this folder, through the provider's `runtimes` option) that binds the
// host's iverilog and vvp read-only. Their compiler stages (ivlpp, ivl) and VPI modules live under /usr/lib, which the
// sandbox root already holds; the driver starts them through /bin/sh, so the sandbox's opt-in shell runtime comes too.
import { realpathSync } from "node:fs";
import { HttpError } from "../../src/protocol/errors.ts";
import { shellRuntime, type SandboxRuntime } from "../../src/sandbox/index.ts";
import { findExecutable, isExecutable } from "../../src/sandbox/bubblewrap/probe.ts";

export const REQUIRED_TOOLS = ["iverilog", "vvp", "sh"] as const;

export type ToolPaths = Partial<Record<(typeof REQUIRED_TOOLS)[number], string | null | undefined>>;

/** The host paths of iverilog, vvp and sh (configured, else on PATH), or a 501 naming the missing one. */
export function findTools(configured: ToolPaths = {}): Record<(typeof REQUIRED_TOOLS)[number], string> {
  const found = {} as Record<(typeof REQUIRED_TOOLS)[number], string>;
  for (const tool of REQUIRED_TOOLS) {
    const given = configured[tool];
    const path = given ? (isExecutable(given) ? given : undefined) : findExecutable(tool);
    if (!path) throw new HttpError(501, `cvdp: ${tool} is not installed here${given ? ` (not an executable: ${given})` : ""}; Verilog designs are simulated with Icarus Verilog (apt-get install -y iverilog)`);
    found[tool] = realpathSync(path);
  }
  return found;
}

/** The Verilog runtime and the /bin/sh its driver needs. */
export function iverilogRuntimes(configured: ToolPaths = {}): SandboxRuntime[] {
  const tools = findTools(configured);
  const verilog: SandboxRuntime = {
    language: "verilog",
    binds: [
      { source: tools.iverilog, dest: "/usr/bin/iverilog" },
      { source: tools.vvp, dest: "/usr/bin/vvp" },
    ],
    symlinks: [],
    path: ["/usr/bin"],
    env: {},
    hostInterpreter: tools.vvp,
    programFile: "main.v",
    probeCommand: ["vvp", "-V"],
    programCommand: (file, args) => ["iverilog", "-g2012", file, ...args],
  };
  return [verilog, shellRuntime(tools.sh)];
}
