// Running untrusted programs: the provider-neutral contract (types.ts), its default limits, the runtimes a sandbox
// can hold, and the bubblewrap provider. An environment holds a SandboxProvider and calls run(); see README.md.
export * from "./types.ts";
export * from "./limits.ts";
export * from "./runtimes.ts";
export { BubblewrapSandbox, type BubblewrapOptions } from "./bubblewrap/provider.ts";
export { SandboxUnavailableError } from "../protocol/errors.ts";
