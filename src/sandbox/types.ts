// The sandbox contract: one untrusted program in, what it did out. A provider (bubblewrap here; Docker or a cloud
// sandbox elsewhere) implements `SandboxProvider`; environments depend on this file only.

/** What bounds one run. Every field has a default (DEFAULT_LIMITS); a request overrides some of them. */
export interface SandboxLimits {
  /** Wall clock from start to kill. */
  wallMs: number;
  /** CPU time (user + system) per process (RLIMIT_CPU: SIGXCPU, then SIGKILL a second later). */
  cpuMs: number;
  /** Memory: the address space of each process (RLIMIT_AS) and, where a memory cgroup is writable, the whole run. */
  memoryBytes: number;
  /** Processes and threads alive at once in the run (RLIMIT_NPROC in its own user namespace, and a pids cgroup). */
  processes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  openFiles: number;
  /**
   * The stack of each process (RLIMIT_STACK, soft limit). Set before the program starts, so glibc and the interpreter
   * see it from their first instruction, as they would a shell's `ulimit -s`. The hard limit stays unlimited: a
   * program may raise its own stack (competitive-programming code does), and every byte of it still counts against
   * `memoryBytes`. glibc sizes each new thread's stack by this soft limit as it was at start, so a value near
   * `memoryBytes` leaves no address space for threads ("can't start new thread"): a program that wants a huge main
   * stack and threads raises it itself at run time (code_gen's harness does, as NeMo Gym's grader).
   */
  stackBytes: number;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** Size of the writable work dir (and of /tmp and /dev/shm, each): tmpfs `size=`. */
  workDirBytes: number;
  /** Bytes kept of stdout and of stderr, each; one byte more ends the run (`outputTruncated`). */
  outputBytes: number;
}

export interface SandboxProgram {
  /** The runtime that runs `source`; its interpreter and libraries are bound read-only. */
  language: string;
  source: string;
  /** argv after the program's file. */
  args?: string[];
}

export interface ReadOnlyRunBind {
  /** The path on this machine. */
  host: string;
  /** Where it appears inside the sandbox. */
  sandbox: string;
}

export interface SandboxRunRequest {
  /** argv, run in the work dir; argv[0] is looked up on the sandbox's PATH (the runtimes' bin dirs). */
  command?: string[];
  /** Or a program: written to the work dir and run by its language's interpreter. Exactly one of the two. */
  program?: SandboxProgram;
  /** Files written into the fresh work dir before the run, by path relative to it. */
  files?: Record<string, string | Uint8Array>;
  stdin?: string | Uint8Array;
  limits?: Partial<SandboxLimits>;
  /** Environment variables for the program, on top of the provider's allowlist (PATH, HOME, LANG, the runtime's own). */
  env?: Record<string, string>;
  /**
   * Host files or folders this run alone sees, read-only (a database: one run gets its own file, never the folder
   * of everyone's). `sandbox` is an absolute path outside the system directories (/usr, /lib*, /bin, /etc, /proc,
   * /dev, /sys, /opt/python); the host path must exist.
   */
  readOnlyBinds?: ReadOnlyRunBind[];
  /** Ends the run early (the caller went away); the result then says `signal: "SIGKILL"`. */
  signal?: AbortSignal;
}

export interface SandboxResult {
  /** The program's exit status; null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it ("SIGKILL", "SIGXCPU", "SIGSEGV", …); null when it exited. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** The wall-clock or the CPU-time limit ended the run. */
  timedOut: boolean;
  /** stdout or stderr passed `outputBytes`: what is kept is the first `outputBytes`, and the run was ended. */
  outputTruncated: boolean;
  /** CPU time of every process of the run, exited ones included; null when the provider cannot measure it honestly. */
  cpuMs: number | null;
  wallMs: number;
  /** Peak memory of the run in KiB (see the provider for exactly what it counts); null when it cannot be measured. */
  maxRssKb: number | null;
}

export interface SandboxProvider {
  /** "bubblewrap", "docker", … — for logs and errors. */
  readonly name: string;
  /**
   * Runs one program in a sandbox of its own, never reused. Rejects with SandboxUnavailableError (src/protocol) when
   * no sandbox can be made — never runs the program unsandboxed. Runs beyond the provider's concurrency wait their turn.
   */
  run(request: SandboxRunRequest): Promise<SandboxResult>;
  /** Throws SandboxUnavailableError when run() would; resolves otherwise (also when the provider closes meanwhile). For a server's startup check. */
  ensureAvailable(): Promise<void>;
  /** Ends runs in flight and releases what the provider holds. */
  close(): Promise<void>;
}
