// τ²-bench's data files (sierra-research/tau2-bench, MIT) that the tau2 agent reads at runtime: the domains'
// policies and databases and the user simulator's guidelines. They are τ²-bench's, so they are never committed:
// fetched on first use from the public repository at the commit below, each checked against its pin, and written
// under responses_api_agents/tau2/tau2_data/ (git-ignored). NeMo Gym clones bxyu-nvidia/tau2-bench@bxyu/nemo_gym_stable
// (a fork); that fork is not reachable from here, so this port follows the upstream repository at a fixed commit.
export const TAU2_BENCH_COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f";
export const TAU2_BENCH_RAW_BASE_URL = `https://raw.githubusercontent.com/sierra-research/tau2-bench/${TAU2_BENCH_COMMIT}`;
/** Where τ²-bench's files are read from instead (a mirror, or a loopback server in tests). */
export const TAU2_BENCH_RAW_BASE_URL_ENV = "NEMO_GYM_TAU2_BENCH_RAW_BASE_URL";

/**
 * Each file's pin at TAU2_BENCH_COMMIT: its sha256 where the bytes were at hand when pinning, and always its git blob
 * id (sha1 of "blob <size>\0<bytes>", as `git ls-tree` lists it), which pins the bytes as firmly. airline/db.json's
 * bytes were not at hand (the mirror holds it as a missing large blob), so it is pinned by its blob id alone.
 */
export const TAU2_BENCH_FILES: Readonly<Record<string, { gitBlob: string; sha256?: string }>> = Object.freeze({
  "data/tau2/domains/airline/db.json": { gitBlob: "c6a1e817aa9102c5822e83affb3595acbc312701" },
  "data/tau2/domains/airline/policy.md": { gitBlob: "8098be7db3f47de943fad39d1e057ede6cc6cd04", sha256: "10dc0525421521208be39cee235bba84a16e2bcba9899eb93d92cd81d2f62fc4" },
  "data/tau2/user_simulator/simulation_guidelines.md": { gitBlob: "b55a28a1d5eaf81e72bdc263307d9f512fe49a99", sha256: "740a29dfa64d7bc08eea3bf7493575b914a63f744acbaf7f199ee07eddaf72d3" },
  "data/tau2/user_simulator/simulation_guidelines_tools.md": { gitBlob: "a7235b1ddf8d0d1e2edc9b1708916f37b0aac045", sha256: "cbf3d8a4d8642fd04e559862f1afef55d7dd4e6a7e727ca49e239023c599de0c" },
  "data/tau2/domains/retail/db.json": { gitBlob: "4d67b03b2d39ade5a7ab6facb2edd7ab3e013d48", sha256: "413a65160adbdb5fde0ffc0015c49b6d70250b10c18128de169b597af7766765" },
  "data/tau2/domains/retail/policy.md": { gitBlob: "d127e6b074654926f337d0d98b0e669ebe90d19e", sha256: "2c9652afbce57d6e087768d37cda64d31c53d50b3e3225cfdb791bac66466467" },
  "data/tau2/domains/telecom/db.toml": { gitBlob: "6c8a639d85896a049a5daf87332107a840a55aac", sha256: "562d647ef9d7df8df91eafd8ee76036e707c8f9e32aaedc4a7fde06975aea2c0" },
  "data/tau2/domains/telecom/user_db.toml": { gitBlob: "1def9a98eabf1d4a5fc95a67387ec294f56196d8", sha256: "4886107ea0c16f8e16d74bef91cfb557de61822afe9361f5a9b241806aea2e4c" },
  "data/tau2/domains/telecom/main_policy.md": { gitBlob: "c55f5bd10c49a3d0b48f6e83a3168e6242fb2be7", sha256: "95943844a0cf11fdf0e2842b483b81d9f9338aa53235712ed131db075d086ed7" },
  "data/tau2/domains/telecom/tech_support_manual.md": { gitBlob: "b64a9f1433bfb62bdaf9e5c1d90c10e833b26c17", sha256: "015a3ee49ec8c199c5e1a059c922081937b92cf3a5ea74fedbc4357816f389ba" },
  "data/tau2/domains/telecom/tech_support_workflow.md": { gitBlob: "36104c70ea1caf5adfbbc8b26b61e29a1da72a7c", sha256: "64f3ccd13875d14f358b21b9af221dab09e0e7bf5690d0e4322fb91855a43a4d" },
});

export const tau2BenchRawBaseUrl = (env: NodeJS.ProcessEnv = process.env): string => (env[TAU2_BENCH_RAW_BASE_URL_ENV] || TAU2_BENCH_RAW_BASE_URL).replace(/\/+$/, "");
