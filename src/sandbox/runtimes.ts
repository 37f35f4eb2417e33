// What a language needs inside the sandbox: its interpreter and libraries (bound read-only), its PATH entries and
// environment, and how it runs a program file. The sandbox root holds the shared C libraries and nothing else; a
// runtime adds exactly its own files.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { relative, isAbsolute, dirname } from "node:path";
import { SandboxUnavailableError } from "../protocol/errors.ts";
import { findExecutable, isExecutable } from "./bubblewrap/probe.ts";

export interface ReadOnlyBind {
  /** Path on the host. */
  source: string;
  /** Path inside the sandbox. */
  dest: string;
}

export interface SandboxRuntime {
  /** The `language` of a SandboxProgram this runtime runs ("python"). */
  language: string;
  binds: ReadOnlyBind[];
  /** Symlinks made inside the sandbox: `link` points to `target`. */
  symlinks: { target: string; link: string }[];
  /** Directories put first on the sandbox's PATH. */
  path: string[];
  env: Record<string, string>;
  /** The interpreter's path on the host (what is bound; for logs and unsandboxed baselines, never run by the provider). */
  hostInterpreter: string;
  /** The file name a program's source is written to in the work dir. */
  programFile: string;
  /** argv the provider runs once at startup to show the runtime works inside its sandbox. */
  probeCommand: string[];
  /** argv that runs the program file with its arguments. */
  programCommand(file: string, args: string[]): string[];
}

/** Where a non-system Python prefix (pyenv, conda, a self-built one) appears inside: never under /root or /home. */
export const SANDBOX_PYTHON_PREFIX = "/opt/python";

const PYTHON_PROBE = ["python3", "-c", "pass"];

interface PythonFacts {
  executable: string;
  basePrefix: string;
  version: string;
}

const PYTHON_FACTS_SCRIPT =
  "import json, os, sys; print(json.dumps({'executable': os.path.realpath(sys.executable), 'basePrefix': sys.base_prefix, 'version': '%d.%d' % sys.version_info[:2]}))";

/**
 * The Python runtime for `interpreter` (default `python3` on this process's PATH). A pyenv `python3` is a shell shim
 * that needs ~/.pyenv and its environment, so the real interpreter is asked where it lives (sys.executable,
 * sys.base_prefix) and that is what gets bound: a system Python (/usr) at its own paths, any other prefix whole at
 * /opt/python with its lib/ on LD_LIBRARY_PATH (a pyenv build links libpython by an absolute RUNPATH).
 */
export function pythonRuntime(interpreter = "python3"): SandboxRuntime {
  let facts: PythonFacts;
  try {
    const out = execFileSync(interpreter, ["-c", PYTHON_FACTS_SCRIPT], { encoding: "utf8", timeout: 15_000, stdio: ["ignore", "pipe", "pipe"] });
    facts = JSON.parse(out.trim().split("\n").pop()!) as PythonFacts;
  } catch (error) {
    throw new SandboxUnavailableError(
      `cannot run ${interpreter} to find the Python to bind into the sandbox (${(error as Error).message.split("\n")[0]})`,
      "install Python 3 (apt-get install -y python3) or set the runtime's interpreter to a working python3",
    );
  }
  const executable = realpathSync(facts.executable);
  const prefix = realpathSync(facts.basePrefix);
  const runsFile = (file: string, args: string[]) => ["python3", file, ...args];
  // Python's own switches for an untrusted program: no user site-packages, no .pyc writes into read-only dirs.
  const env = { PYTHONNOUSERSITE: "1", PYTHONDONTWRITEBYTECODE: "1" };
  if (prefix === "/usr") {
    const stdlib = `/usr/lib/python${facts.version}`;
    const binds = [{ source: executable, dest: executable }];
    // /usr/lib (stdlib, dist-packages) is already in the sandbox root; /usr/local's site-packages is added when present.
    const local = `/usr/local/lib/python${facts.version}`;
    if (existsSync(local)) binds.push({ source: local, dest: local });
    if (!existsSync(stdlib)) throw new SandboxUnavailableError(`${executable} has no standard library at ${stdlib}`, "reinstall python3 (apt-get install --reinstall -y python3)");
    const symlinks = executable === "/usr/bin/python3" ? [] : [{ target: executable, link: "/usr/bin/python3" }];
    return { language: "python", binds, symlinks, path: ["/usr/bin"], env, hostInterpreter: executable, probeCommand: PYTHON_PROBE, programFile: "main.py", programCommand: runsFile };
  }
  const inPrefix = relative(prefix, executable);
  if (inPrefix.startsWith("..") || isAbsolute(inPrefix)) {
    throw new SandboxUnavailableError(`${executable} is not inside its sys.base_prefix ${prefix}`, "point the runtime at the interpreter of a regular Python install");
  }
  const insideExecutable = `${SANDBOX_PYTHON_PREFIX}/${inPrefix}`;
  const insideBin = dirname(insideExecutable);
  // The prefix is bound read-only, so a missing `python3` name goes next to it, in a directory of the sandbox's root.
  const hasPython3 = existsSync(`${dirname(executable)}/python3`);
  const symlinks = hasPython3 ? [] : [{ target: insideExecutable, link: "/usr/local/bin/python3" }];
  return {
    language: "python",
    binds: [{ source: prefix, dest: SANDBOX_PYTHON_PREFIX }],
    symlinks,
    path: hasPython3 ? [insideBin] : [insideBin, "/usr/local/bin"],
    env: { ...env, LD_LIBRARY_PATH: `${SANDBOX_PYTHON_PREFIX}/lib` },
    hostInterpreter: executable,
    probeCommand: PYTHON_PROBE,
    programFile: "main.py",
    programCommand: runsFile,
  };
}

/**
 * A POSIX shell at /bin/sh (and /usr/bin/sh), opt-in: the sandbox root has none, so `os.system`, `subprocess.run(...,
 * shell=True)` or a compiler driver that starts its stages through sh fail without it. Only the shell is added — no
 * coreutils — so a program gets sh's builtins (echo, printf, test, read …), nothing else of this machine. The host's
 * sh (dash on Debian) needs libc alone, which the root already holds. As a runtime it also runs `language: "sh"`
 * programs.
 */
export function shellRuntime(shell?: string): SandboxRuntime {
  const found = shell ?? findExecutable("sh");
  if (!found || !isExecutable(found)) {
    throw new SandboxUnavailableError(`no POSIX shell to bind at /bin/sh in the sandbox${shell ? ` (not an executable: ${shell})` : ""}`, "apt-get install -y dash");
  }
  const source = realpathSync(found);
  const binds = [{ source, dest: "/usr/bin/sh" }];
  // A merged /usr host's /bin is the symlink to usr/bin the sandbox root recreates; otherwise /bin/sh is its own file.
  if (!(existsSync("/bin") && lstatSync("/bin").isSymbolicLink())) binds.push({ source, dest: "/bin/sh" });
  return {
    language: "sh",
    binds,
    symlinks: [],
    path: ["/usr/bin"],
    env: {},
    hostInterpreter: source,
    programFile: "main.sh",
    probeCommand: ["/bin/sh", "-c", ":"],
    programCommand: (file, args) => ["/bin/sh", file, ...args],
  };
}
