// `gym --version [--json]`: NeMo Gym's version report (its general:version), with Node in Python's place.
import { readFileSync } from "node:fs";
import { arch, cpus, release, totalmem, type as osType } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../config/index.ts";

const packageVersion = (path: string): string => {
  try {
    return JSON.parse(readFileSync(join(path, "package.json"), "utf8")).version as string;
  } catch {
    return "not installed";
  }
};

export const gymVersion = (): string => packageVersion(PROJECT_ROOT);

/** The libraries the servers and the CLI stand on (NeMo Gym reports openai and ray). */
const KEY_DEPENDENCIES = ["undici", "commander", "zod", "fastify"];

export function versionInfo() {
  return {
    nemo_gym: gymVersion(),
    node: process.versions.node,
    node_path: process.execPath,
    installation_path: PROJECT_ROOT,
    dependencies: Object.fromEntries(KEY_DEPENDENCIES.map((name) => [name, packageVersion(join(PROJECT_ROOT, "node_modules", name))])),
    system: {
      os: `${osType()} ${release()}`,
      platform: process.platform,
      architecture: arch(),
      processor: cpus()[0]?.model ?? "unknown",
      cpus: cpus().length,
      memory_gb: Math.round((totalmem() / 1024 ** 3) * 100) / 100,
    },
  };
}

export function formatVersion(json: boolean): string {
  const info = versionInfo();
  if (json) return JSON.stringify(info);
  const dependencies = Object.entries(info.dependencies).map(([name, version]) => `  ${name}: ${version}`);
  return [
    `NeMo Gym TS v${info.nemo_gym}`,
    `Node ${info.node} (${info.node_path})`,
    `Installation: ${info.installation_path}`,
    "",
    "Key Dependencies:",
    ...dependencies,
    "",
    "System:",
    `  OS: ${info.system.os}`,
    `  Platform: ${info.system.platform}`,
    `  Architecture: ${info.system.architecture}`,
    `  Processor: ${info.system.processor}`,
    `  CPUs: ${info.system.cpus}`,
    `  Memory: ${info.system.memory_gb} GB`,
  ].join("\n");
}
