// Gateway settings and the callback allowlist (spec §1.6, §2.2; reference tests 59–69), plus registration files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { checkCallbackUrl, parseAllowlist } from "../../src/gateway/allowlist.ts";
import { GatewayConfigError, configFingerprint, findRegistration, loadGatewaySettings, stateBackendOf } from "../../src/gateway/settings.ts";

const REGISTRATION = {
  environment: "multi_step",
  agent_name: "example_multi_step_simple_agent",
  agent_url: "http://127.0.0.1:10001",
  interrupt_policy: "protected",
  max_concurrency: 2,
  queue_capacity: 4,
};

function environ(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ "multi-step-v1": REGISTRATION }),
    NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "relax-head,relax-worker.example",
    NEMO_GYM_COMMIT: "abc123",
    ...extra,
  };
}

const rejects = (env: NodeJS.ProcessEnv, pattern: RegExp) =>
  assert.throws(() => loadGatewaySettings(env), (error: unknown) => error instanceof GatewayConfigError && pattern.test(error.message));

test("settings_register_only_named_server_side_configs", () => {
  const settings = loadGatewaySettings(environ());
  const spec = findRegistration(settings, "multi_step", "multi-step-v1");
  assert.ok(spec);
  assert.equal(spec.agent_url, "http://127.0.0.1:10001");
  assert.equal(spec.agent_name, "example_multi_step_simple_agent");
  assert.equal(spec.max_concurrency, 2);
  assert.deepEqual(spec.readiness_urls, ["http://127.0.0.1:10001"]);
  assert.equal(settings.gymCommit, "abc123");
  assert.equal(findRegistration(settings, "multi_step", "other-config"), undefined);
  assert.equal(findRegistration(settings, "other_env", "multi-step-v1"), undefined);
});

test("registration defaults: protected policy, 1 running, 8 queued, 3600 s, no cleanup URLs", () => {
  const env = environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ c: { environment: "e", agent_name: "a", agent_url: "http://gym:1/" } }) });
  const [spec] = loadGatewaySettings(env).environments;
  assert.deepEqual(spec, {
    config: "c",
    environment: "e",
    agent_name: "a",
    agent_url: "http://gym:1",
    readiness_urls: ["http://gym:1"],
    abort_url: null,
    force_cleanup_url: null,
    cleanup_probe_url: null,
    interrupt_policy: "protected",
    max_concurrency: 1,
    queue_capacity: 8,
    max_deadline_s: 3600,
  });
});

test("settings defaults: timeouts, scan interval, SQLite state, one-week tombstones, no proxy or token", () => {
  const settings = loadGatewaySettings(environ({ NEMO_GYM_COMMIT: "" }));
  assert.equal(settings.callbackTimeoutS, 600);
  assert.equal(settings.cleanupGraceS, 30);
  assert.equal(settings.leaseScanIntervalS, 0.25);
  assert.equal(settings.callbackProxy, null);
  assert.equal(settings.artifactRoot, null);
  assert.equal(settings.gymCommit, "unknown");
  assert.equal(settings.verbose, false);
  assert.equal(settings.stateUrl, "./gateway-state.sqlite");
  assert.equal(stateBackendOf(settings.stateUrl), "sqlite");
  assert.equal(settings.terminalTtlS, 604_800);
  assert.equal(settings.authToken, null);
});

test("settings_load_explicit_callback_proxy_and_timeout (the proxy and token are never shown)", () => {
  const settings = loadGatewaySettings(
    environ({
      NEMO_GYM_CALLBACK_PROXY: "http://proxy.example:3128",
      NEMO_GYM_CALLBACK_TIMEOUT_S: "45",
      NEMO_GYM_ARTIFACT_ROOT: "/shared/r2e-artifacts",
      NEMO_GYM_GATEWAY_TOKEN: "deploy-token-123",
      NEMO_GYM_GATEWAY_STATE: "redis://:redis-pass@redis:6379/0",
      NEMO_GYM_VERBOSE: "1",
    }),
  );
  assert.equal(settings.callbackProxy, "http://proxy.example:3128");
  assert.equal(settings.callbackTimeoutS, 45);
  assert.equal(settings.artifactRoot, "/shared/r2e-artifacts");
  assert.equal(settings.authToken, "deploy-token-123");
  assert.equal(settings.verbose, true);
  assert.equal(stateBackendOf(settings.stateUrl), "redis");
  for (const shown of [inspect(settings), JSON.stringify(settings), inspect({ ...settings, extra: 1 }), JSON.stringify({ ...settings })]) {
    assert.ok(!shown.includes("proxy.example"), shown);
    assert.ok(!shown.includes("deploy-token-123"), shown);
    assert.ok(!shown.includes("redis-pass"), shown);
    assert.ok(shown.includes("relax-head"), shown);
  }
});

for (const proxy of ["http://user:secret@proxy.example:3128", "http://proxy.example:3128/path", "http://proxy.example:3128?target=model"]) {
  test(`settings_reject_unsafe_callback_proxy_urls (${new URL(proxy).username ? "userinfo" : proxy.includes("?") ? "query" : "path"})`, () => {
    assert.throws(
      () => loadGatewaySettings(environ({ NEMO_GYM_CALLBACK_PROXY: proxy })),
      (error: unknown) => error instanceof GatewayConfigError && error.message.includes("NEMO_GYM_CALLBACK_PROXY") && !error.message.includes("secret"),
    );
  });
}

test("settings_reject_wildcard_callback_hosts", () => {
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "*" }), /Wildcard/);
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "relax-head,*.example" }), /Wildcard/);
});

test("an empty allowlist is refused: at least one host or network", () => {
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_HOSTS: " , " }), /NEMO_GYM_CALLBACK_ALLOWED_HOSTS.*NEMO_GYM_CALLBACK_ALLOWED_NETWORKS/);
});

test("callback_url_accepts_ip_in_allowlisted_network", () => {
  const { allowlist } = loadGatewaySettings(environ({ NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "", NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "192.0.2.0/24,198.51.100.0/24" }));
  checkCallbackUrl(allowlist, "http://192.0.2.148:8000/agentic_api", { proxyEnabled: false });
  checkCallbackUrl(allowlist, "http://198.51.100.7/agentic_api", { proxyEnabled: false });
  assert.throws(() => checkCallbackUrl(allowlist, "http://203.0.113.1:8000/agentic_api", { proxyEnabled: false }), /allowlist/);
  // A name is never resolved: it passes only through the hosts list.
  assert.throws(() => checkCallbackUrl(allowlist, "http://localhost:8000/agentic_api", { proxyEnabled: false }), /allowlist/);
});

test("callback_url_keeps_exact_ip_host_compatibility", () => {
  checkCallbackUrl(parseAllowlist({ hosts: "192.0.2.148" }), "http://192.0.2.148:8000/agentic_api", { proxyEnabled: false });
  checkCallbackUrl(parseAllowlist({ hosts: "[FD12:0::34]" }), "http://[fd12::34]:8000/agentic_api", { proxyEnabled: false });
});

test("callback_url_accepts_ipv6_in_allowlisted_network", () => {
  const { allowlist } = loadGatewaySettings(environ({ NEMO_GYM_CALLBACK_ALLOWED_HOSTS: "", NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "fd00::/8" }));
  checkCallbackUrl(allowlist, "http://[fd12::34]:8000/agentic_api", { proxyEnabled: false });
  assert.throws(() => checkCallbackUrl(allowlist, "http://[fe80::1]:8000/agentic_api", { proxyEnabled: false }), /allowlist/);
  // IPv4 addresses never match an IPv6 network, nor the reverse.
  assert.throws(() => checkCallbackUrl(allowlist, "http://10.0.0.1:8000/agentic_api", { proxyEnabled: false }), /allowlist/);
});

test("single addresses need /32 or /128", () => {
  const allowlist = parseAllowlist({ networks: "10.1.2.3/32, 2001:db8::7/128" });
  checkCallbackUrl(allowlist, "http://10.1.2.3:8000", { proxyEnabled: false });
  checkCallbackUrl(allowlist, "http://[2001:db8::7]/", { proxyEnabled: false });
  assert.throws(() => checkCallbackUrl(allowlist, "http://10.1.2.4:8000", { proxyEnabled: false }), /allowlist/);
  assert.throws(() => checkCallbackUrl(allowlist, "http://[2001:db8::8]/", { proxyEnabled: false }), /allowlist/);
});

test("settings_reject_invalid_callback_network", () => {
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "192.0.2.3/24" }), /NEMO_GYM_CALLBACK_ALLOWED_NETWORKS must contain valid CIDR.*host bits/);
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "fd00::1/8" }), /valid CIDR.*host bits/);
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "10.0.0.0" }), /valid CIDR/);
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "10.0.0.0/33" }), /valid CIDR/);
  rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "relax.example/24" }), /valid CIDR/);
});

for (const network of ["0.0.0.0/0", "::/0"]) {
  test(`settings_reject_default_route_callback_network (${network})`, () => {
    rejects(environ({ NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: network }), /default-route/);
  });
}

test("callback_url_requires_exact_allowlisted_host", () => {
  const allowlist = parseAllowlist({ hosts: "Relax-Head" });
  checkCallbackUrl(allowlist, "http://relax-head:8000/agentic_api", { proxyEnabled: false });
  checkCallbackUrl(allowlist, "http://RELAX-HEAD:8000/agentic_api", { proxyEnabled: false });
  assert.throws(() => checkCallbackUrl(allowlist, "http://metadata.internal/latest", { proxyEnabled: false }), /allowlist/);
  assert.throws(() => checkCallbackUrl(allowlist, "http://relax-head.evil.example/", { proxyEnabled: false }), /allowlist/);
});

test("callback_url_requires_tls_when_proxy_is_enabled", () => {
  const allowlist = parseAllowlist({ hosts: "model.example" });
  checkCallbackUrl(allowlist, "https://model.example/v1", { proxyEnabled: true });
  assert.throws(() => checkCallbackUrl(allowlist, "http://model.example/v1", { proxyEnabled: true }), /must use https/);
});

test("callback URLs with user info, a fragment or another scheme are refused without echoing them", () => {
  const allowlist = parseAllowlist({ hosts: "model.example" });
  const cases: Array<[string, RegExp]> = [
    ["http://tok:session-secret@model.example/v1", /user info/],
    ["http://session-secret@model.example/v1", /user info/],
    ["http://model.example/v1#session-secret", /fragment/],
    ["ftp://model.example/session-secret", /absolute http\(s\) URL/],
    ["not a url session-secret", /absolute http\(s\) URL/],
  ];
  for (const [url, pattern] of cases) {
    assert.throws(
      () => checkCallbackUrl(allowlist, url, { proxyEnabled: false }),
      (error: unknown) => error instanceof GatewayConfigError && pattern.test(error.message) && !error.message.includes("session-secret"),
    );
  }
});

test("registrations load from a YAML or JSON file named by NEMO_GYM_GATEWAY_ENVIRONMENTS", () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-settings-"));
  const yamlPath = join(dir, "environments.yaml");
  writeFileSync(
    yamlPath,
    [
      "workplace-assistant-v1:",
      "  environment: workplace_assistant",
      "  agent_name: workplace_assistant_simple_agent",
      "  agent_url: http://gym:28101",
      "  readiness_urls: [http://gym:28101, http://gym:28102/]",
      "  cleanup_probe_url: http://gym:28102/cleanup/{rollout_id}",
      "  max_concurrency: 8",
      "  queue_capacity: 32",
      "  max_deadline_s: 1800",
    ].join("\n"),
  );
  const jsonPath = join(dir, "environments.json");
  writeFileSync(jsonPath, JSON.stringify({ "multi-step-v1": REGISTRATION }));

  const fromYaml = loadGatewaySettings({ ...environ(), NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "", NEMO_GYM_GATEWAY_ENVIRONMENTS: yamlPath });
  const [spec] = fromYaml.environments;
  assert.equal(spec.config, "workplace-assistant-v1");
  assert.deepEqual(spec.readiness_urls, ["http://gym:28101", "http://gym:28102"]);
  assert.equal(spec.cleanup_probe_url, "http://gym:28102/cleanup/{rollout_id}");
  assert.equal(spec.max_deadline_s, 1800);

  const fromJson = loadGatewaySettings({ ...environ(), NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "", NEMO_GYM_GATEWAY_ENVIRONMENTS: jsonPath });
  assert.equal(fromJson.configFingerprint, loadGatewaySettings(environ()).configFingerprint);

  rejects({ ...environ(), NEMO_GYM_GATEWAY_ENVIRONMENTS: jsonPath }, /only one of NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON and NEMO_GYM_GATEWAY_ENVIRONMENTS/);
  rejects({ ...environ(), NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "", NEMO_GYM_GATEWAY_ENVIRONMENTS: join(dir, "missing.yaml") }, /NEMO_GYM_GATEWAY_ENVIRONMENTS: cannot read/);
  writeFileSync(join(dir, "bad.yaml"), "a: [unclosed");
  rejects({ ...environ(), NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "", NEMO_GYM_GATEWAY_ENVIRONMENTS: join(dir, "bad.yaml") }, /not valid YAML/);
  rejects({ ...environ(), NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "", NEMO_GYM_GATEWAY_ENVIRONMENTS: join(dir, "envs.txt") }, /\.json, \.yaml or \.yml/);
});

test("a duplicate (environment, config) pair is a startup error", () => {
  const settings = loadGatewaySettings(environ());
  const [spec] = settings.environments;
  assert.throws(() => loadGatewaySettings(environ(), { environments: [spec, { ...spec }] }), /Duplicate environment registration/);
});

test("the config fingerprint covers every registration and ignores their order", () => {
  const two = { a: { ...REGISTRATION, environment: "x" }, b: { ...REGISTRATION, environment: "y", max_concurrency: 3 } };
  const forward = loadGatewaySettings(environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify(two) }));
  const reversed = loadGatewaySettings(environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ b: two.b, a: two.a }) }));
  assert.match(forward.configFingerprint, /^[0-9a-f]{64}$/);
  assert.equal(forward.configFingerprint, reversed.configFingerprint);
  assert.equal(forward.configFingerprint, configFingerprint([...forward.environments].reverse()));
  const changed = loadGatewaySettings(environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ ...two, b: { ...two.b, max_concurrency: 4 } }) }));
  assert.notEqual(changed.configFingerprint, forward.configFingerprint);
});

test("bad values are refused with the variable or field named", () => {
  const registration = (extra: object) => environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ cfg: { ...REGISTRATION, ...extra } }) });
  rejects({}, /NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON or NEMO_GYM_GATEWAY_ENVIRONMENTS must be set/);
  rejects(environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "{nope" }), /NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON must contain valid JSON/);
  rejects(environ({ NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: "[]" }), /NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON must contain a non-empty object/);
  rejects(environ({ NEMO_GYM_CALLBACK_TIMEOUT_S: "0" }), /NEMO_GYM_CALLBACK_TIMEOUT_S must be a positive number/);
  rejects(environ({ NEMO_GYM_CLEANUP_GRACE_S: "soon" }), /NEMO_GYM_CLEANUP_GRACE_S/);
  rejects(environ({ NEMO_GYM_LEASE_SCAN_INTERVAL_S: "-1" }), /NEMO_GYM_LEASE_SCAN_INTERVAL_S/);
  rejects(environ({ NEMO_GYM_GATEWAY_TERMINAL_TTL_S: "Infinity" }), /NEMO_GYM_GATEWAY_TERMINAL_TTL_S/);
  rejects(environ({ NEMO_GYM_ARTIFACT_ROOT: "relative/dir" }), /NEMO_GYM_ARTIFACT_ROOT must be an absolute path/);
  rejects(environ({ NEMO_GYM_VERBOSE: "maybe" }), /NEMO_GYM_VERBOSE/);
  rejects(environ({ NEMO_GYM_GATEWAY_STATE: "postgres://db/x" }), /NEMO_GYM_GATEWAY_STATE/);
  rejects(environ({ NEMO_GYM_CALLBACK_PROXY: "socks5://proxy:1080" }), /NEMO_GYM_CALLBACK_PROXY must be an absolute http\(s\) URL/);
  rejects(registration({ agent_url: "gym:10001" }), /cfg\.agent_url must be an absolute http\(s\) URL/);
  rejects(registration({ readiness_urls: [] }), /cfg\.readiness_urls must be a non-empty list/);
  rejects(registration({ readiness_urls: ["http://ok", "/relative"] }), /cfg\.readiness_urls\[1\]/);
  rejects(registration({ abort_url: "ftp://gym/abort" }), /cfg\.abort_url/);
  rejects(registration({ interrupt_policy: "sometimes" }), /cfg\.interrupt_policy must be one of protected, interruptible, resumable/);
  rejects(registration({ max_concurrency: 0 }), /cfg\.max_concurrency must be an integer ≥ 1/);
  rejects(registration({ queue_capacity: 1.5 }), /cfg\.queue_capacity must be an integer ≥ 0/);
  rejects(registration({ max_deadline_s: -3 }), /cfg\.max_deadline_s must be a positive number/);
  rejects(registration({ environment: " " }), /cfg\.environment must be a non-empty string/);
  rejects(registration({ max_concurency: 3 }), /cfg\.max_concurency is not a registration field/);
});

test("overrides replace parsed values, and supplying environments and allowlist makes their variables optional", () => {
  const base = loadGatewaySettings(environ());
  const settings = loadGatewaySettings({ NEMO_GYM_GATEWAY_STATE: ":memory:" }, { environments: base.environments, allowlist: base.allowlist, leaseScanIntervalS: 0.01 });
  assert.equal(settings.leaseScanIntervalS, 0.01);
  assert.equal(stateBackendOf(settings.stateUrl), "memory");
  assert.equal(settings.configFingerprint, base.configFingerprint);
});
