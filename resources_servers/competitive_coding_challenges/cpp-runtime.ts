// A sandbox runtime for C++17 contest grading: g++ and the shell tools the problems' compile.sh / run.sh use. The
// scripts come from the test metadata and may call any coreutils, so /usr/bin is bound whole (read-only), with the
// C/C++ headers; gcc's own programs (cc1plus, collect2) live under /usr/lib, which every sandbox already has.
import { existsSync } from "node:fs";
import { SandboxUnavailableError, type SandboxRuntime } from "../../src/sandbox/index.ts";

export function cppRuntime(): SandboxRuntime {
  for (const needed of ["/usr/bin/g++", "/usr/bin/bash", "/usr/bin/timeout", "/usr/bin/base64", "/usr/include"]) {
    if (!existsSync(needed)) throw new SandboxUnavailableError(`${needed}, which grading C++ solutions needs inside the sandbox, is missing`, "apt-get install -y g++ coreutils bash");
  }
  return {
    language: "cpp-grader",
    binds: [
      { source: "/usr/bin", dest: "/usr/bin" },
      { source: "/usr/include", dest: "/usr/include" },
    ],
    symlinks: [],
    path: ["/usr/bin"],
    env: {},
    hostInterpreter: "/usr/bin/bash",
    programFile: "grade.sh",
    probeCommand: ["g++", "--version"],
    programCommand: (file, args) => ["bash", file, ...args],
  };
}
