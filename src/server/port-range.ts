// NeMo Gym's `port_range_low` / `port_range_high` (global keys): a server without a fixed port gets a free port
// picked at random in that range, never one of `disallowed_ports` (the head server's and every fixed one). NeMo Gym
// probes in the parent and the child binds later; here the child binds the port it picked, which is the allocation,
// so two servers never end up with the same port.
import { randomInt } from "node:crypto";
import type { ConfigDict } from "../config/index.ts";
import { ServerConfigError } from "./config-error.ts";

export interface PortRange {
  low: number;
  high: number;
  disallowed: ReadonlySet<number>;
}

/** As NeMo Gym: 50 random picks, then the start fails. */
const MAX_ATTEMPTS = 50;

const asPort = (value: unknown): number | undefined => {
  const number = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) && number >= 1 && number <= 65535 ? number : undefined;
};

/** The global config's range, undefined when it sets neither key; ServerConfigError when the range is not one. */
export function portRangeOf(globalConfig: ConfigDict): PortRange | undefined {
  const rawLow = globalConfig.port_range_low;
  const rawHigh = globalConfig.port_range_high;
  if ((rawLow === undefined || rawLow === null) && (rawHigh === undefined || rawHigh === null)) return undefined;
  const low = asPort(rawLow);
  const high = asPort(rawHigh);
  if (low === undefined || high === undefined || low > high) {
    throw new ServerConfigError(
      `port_range_low / port_range_high must be two ports (1–65535) with low <= high, got ${JSON.stringify(rawLow)} / ${JSON.stringify(rawHigh)}`,
    );
  }
  const disallowed = Array.isArray(globalConfig.disallowed_ports) ? globalConfig.disallowed_ports.map(asPort).filter((p) => p !== undefined) : [];
  return { low, high, disallowed: new Set(disallowed) };
}

/** Calls `listen` with random ports of the range until one binds; a port taken (EADDRINUSE, EACCES) is skipped. */
export async function listenInRange(listen: (port: number) => Promise<unknown>, range: PortRange): Promise<number> {
  const candidates = range.high - range.low + 1 - [...range.disallowed].filter((p) => p >= range.low && p <= range.high).length;
  if (candidates <= 0) throw new ServerConfigError(`port_range_low..port_range_high (${range.low}..${range.high}) holds only disallowed ports`);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let port: number;
    do port = randomInt(range.low, range.high + 1);
    while (range.disallowed.has(port));
    try {
      await listen(port);
      return port;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EADDRINUSE" && code !== "EACCES") throw error;
    }
  }
  throw new Error(`no free port in port_range_low..port_range_high (${range.low}..${range.high}) after ${MAX_ATTEMPTS} attempts`);
}
