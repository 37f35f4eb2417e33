// Which Relax endpoints a trial may point the model callback at (spec §2.2). Hostnames are compared exactly and
// never resolved: a DNS answer can change between this check and the connection, an IP literal cannot.
import { isIPv4, isIPv6 } from "node:net";
import { GatewayConfigError } from "./errors.ts";

export interface CallbackNetwork {
  /** As configured, e.g. `10.0.0.0/8`. */
  cidr: string;
  family: 4 | 6;
  /** The network address as an integer (32 or 128 bits). */
  base: bigint;
  prefixLength: number;
}

export interface CallbackAllowlist {
  /** Lowercased hostnames; IP literals in canonical form without brackets. */
  hosts: ReadonlySet<string>;
  networks: readonly CallbackNetwork[];
}

export const NETWORKS_VAR = "NEMO_GYM_CALLBACK_ALLOWED_NETWORKS";
export const HOSTS_VAR = "NEMO_GYM_CALLBACK_ALLOWED_HOSTS";

const BASE_URL_FIELD = "model_endpoint.base_url";

/** Both lists are comma-separated; at least one of them must name something. */
export function parseAllowlist(raw: { networks?: string; hosts?: string }): CallbackAllowlist {
  const hosts = new Set(splitList(raw.hosts).map(parseHostEntry));
  const networks = splitList(raw.networks).map(parseNetwork);
  if (hosts.size === 0 && networks.length === 0) {
    throw new GatewayConfigError(`At least one exact callback hostname (${HOSTS_VAR}) or CIDR network (${NETWORKS_VAR}) must be configured`);
  }
  return { hosts, networks };
}

export function allowlistFromEnv(env: NodeJS.ProcessEnv): CallbackAllowlist {
  return parseAllowlist({ networks: env[NETWORKS_VAR], hosts: env[HOSTS_VAR] });
}

/**
 * Throws when a trial's callback base URL may not be used. Messages name the rule, never the URL: it can carry
 * credentials the caller put there by mistake.
 */
export function checkCallbackUrl(allowlist: CallbackAllowlist, baseUrl: string, options: { proxyEnabled: boolean }): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayConfigError(`${BASE_URL_FIELD} must be an absolute http(s) URL`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw new GatewayConfigError(`${BASE_URL_FIELD} must be an absolute http(s) URL`);
  }
  if (options.proxyEnabled && url.protocol !== "https:") {
    throw new GatewayConfigError(`${BASE_URL_FIELD} must use https when the callback proxy is enabled`);
  }
  if (url.username !== "" || url.password !== "" || hasUserInfo(baseUrl)) {
    throw new GatewayConfigError(`${BASE_URL_FIELD} must not contain user info`);
  }
  // WHATWG drops an empty fragment ("…/#"), so look at the raw text too.
  if (url.hash !== "" || baseUrl.includes("#")) {
    throw new GatewayConfigError(`${BASE_URL_FIELD} must not contain a fragment`);
  }
  const host = stripBrackets(url.hostname);
  if (allowlist.hosts.has(host)) return;
  const address = parseAddress(host);
  if (address && allowlist.networks.some((network) => contains(network, address))) return;
  throw new GatewayConfigError(`${BASE_URL_FIELD} host is not in the callback allowlist`);
}

function splitList(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function parseHostEntry(entry: string): string {
  const host = stripBrackets(entry.toLowerCase());
  if (host.includes("*")) throw new GatewayConfigError(`Wildcard callback hosts are not supported (${HOSTS_VAR})`);
  if (isIPv6(host) && !host.includes("%")) return canonicalIPv6(host);
  if (isIPv4(host)) return host;
  if (!/^[a-z0-9_.-]+$/.test(host)) {
    throw new GatewayConfigError(`${HOSTS_VAR} entries must be bare hostnames or IP addresses (no scheme, port or path): ${JSON.stringify(entry)}`);
  }
  return host;
}

function parseNetwork(cidr: string): CallbackNetwork {
  const invalid = (why: string) => new GatewayConfigError(`${NETWORKS_VAR} must contain valid CIDR networks: ${JSON.stringify(cidr)} ${why}`);
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  if (!match) throw invalid("is not <address>/<prefix length>");
  const address = parseAddress(match[1]);
  if (!address) throw invalid("does not start with an IPv4 or IPv6 address");
  const bits = address.family === 4 ? 32 : 128;
  const prefixLength = Number(match[2]);
  if (prefixLength > bits) throw invalid(`has a prefix length above ${bits}`);
  if (prefixLength === 0) {
    throw new GatewayConfigError(`${NETWORKS_VAR} must not contain a default-route network (${cidr}); list the Relax networks explicitly`);
  }
  if ((address.value & hostMask(bits, prefixLength)) !== 0n) throw invalid("has host bits set");
  return { cidr, family: address.family, base: address.value, prefixLength };
}

interface Address {
  family: 4 | 6;
  value: bigint;
}

function contains(network: CallbackNetwork, address: Address): boolean {
  if (network.family !== address.family) return false;
  const bits = network.family === 4 ? 32 : 128;
  return (address.value & ~hostMask(bits, network.prefixLength)) === network.base;
}

function hostMask(bits: number, prefixLength: number): bigint {
  return (1n << BigInt(bits - prefixLength)) - 1n;
}

/** An IP literal as an integer; null for hostnames (and for IPv6 zone ids, which a URL cannot carry). */
function parseAddress(text: string): Address | null {
  if (isIPv4(text)) return { family: 4, value: ipv4Value(text) };
  if (!isIPv6(text) || text.includes("%")) return null;
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").flatMap(expandEmbeddedIPv4) : []);
  const left = groups(head);
  const right = groups(tail);
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill("0");
  return { family: 6, value: [...left, ...middle, ...right].reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n) };
}

function ipv4Value(text: string): bigint {
  return text.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** `::ffff:1.2.3.4` ends in a dotted quad worth two 16-bit groups. */
function expandEmbeddedIPv4(group: string): string[] {
  if (!group.includes(".")) return [group];
  const value = ipv4Value(group);
  return [(value >> 16n).toString(16), (value & 0xffffn).toString(16)];
}

function canonicalIPv6(text: string): string {
  return stripBrackets(new URL(`http://[${text}]/`).hostname);
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** `http://@host/` parses with an empty username; it is still user info the caller did not mean to send. */
function hasUserInfo(raw: string): boolean {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? "";
  return authority.includes("@");
}
