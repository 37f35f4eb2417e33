// Finding bubblewrap and prlimit, and reading what a failure to start a sandbox means for the operator: every
// SandboxUnavailableError says what is missing and the command that fixes it.
import { accessSync, constants } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { SandboxUnavailableError } from "../../protocol/errors.ts";

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An executable named `name` on PATH or in the usual system directories, or undefined. */
export function findExecutable(name: string, pathVariable = process.env.PATH ?? ""): string | undefined {
  const dirs = [...pathVariable.split(":").filter((dir) => dir !== ""), "/usr/bin", "/bin", "/usr/sbin", "/usr/local/bin"];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export const INSTALL_BUBBLEWRAP = "apt-get install -y bubblewrap (Debian/Ubuntu; `npm test` and `npm start` do it when run as root), dnf install -y bubblewrap (Fedora)";

export function missingBubblewrap(): SandboxUnavailableError {
  return new SandboxUnavailableError("bubblewrap (bwrap) is not installed", INSTALL_BUBBLEWRAP);
}

export function missingPrlimit(): SandboxUnavailableError {
  return new SandboxUnavailableError("prlimit (util-linux), which applies the sandbox's rlimits, is not installed", "apt-get install -y util-linux");
}

/** bwrap's version as [major, minor, patch], or undefined when it does not say. */
export function bwrapVersion(bwrapPath: string): [number, number, number] | undefined {
  try {
    const match = /(\d+)\.(\d+)\.(\d+)/.exec(execFileSync(bwrapPath, ["--version"], { encoding: "utf8", timeout: 5000 }));
    return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
  } catch {
    return undefined;
  }
}

/** What bwrap's own error on stderr (the sandbox never started) means, and what fixes it. */
export function sandboxStartFailure(stderr: string): SandboxUnavailableError {
  const said = stderr.trim().split("\n").slice(-3).join(" / ") || "no message";
  const unbindable = /Can't find source path (.*?): (.*)$/m.exec(stderr);
  if (unbindable) {
    return new SandboxUnavailableError(`bubblewrap cannot bind ${unbindable[1]} into the sandbox: ${unbindable[2]!.trim()}`, "make that path readable, or configure a runtime whose files are");
  }
  if (/namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(said)) {
    return new SandboxUnavailableError(
      `bubblewrap cannot create its namespaces here (${said})`,
      "allow user namespaces: sysctl -w user.max_user_namespaces=15000; on Ubuntu ≥ 23.10 sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; on Debian ≤ 10 sysctl -w kernel.unprivileged_userns_clone=1; in Docker run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined",
    );
  }
  return new SandboxUnavailableError(`bubblewrap could not start the sandbox (${said})`, "run the bwrap command from the server's log by hand to see what fails, and fix that");
}
