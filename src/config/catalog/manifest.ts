// An environment's or benchmark's `manifest.yaml` (NeMo Gym's authored metadata next to config.yaml), read only
// for what the catalogue shows. A manifest that does not name its own folder and kind is not used.
import { existsSync } from "node:fs";
import { isDict } from "../dict.ts";
import { readYamlQuietly } from "./config-chain.ts";

export const MANIFEST_FILENAME = "manifest.yaml";

export interface ManifestMetadata {
  description?: string;
  domain?: string;
  version?: string;
  integration_profile?: string;
  modality?: string;
  licensing?: string;
  lifecycle?: string;
}

const FIELDS = ["description", "domain", "version", "integration_profile", "modality", "licensing", "lifecycle"] as const;

/** The manifest's metadata, or undefined when there is none or it names another entry (the reason goes to `problems`). */
export function readManifest(path: string, expected: { name: string; kind: string }, problems: string[]): ManifestMetadata | undefined {
  if (!existsSync(path)) return undefined;
  const manifest = readYamlQuietly(path, problems);
  if (!isDict(manifest)) return undefined;
  if (manifest.name !== expected.name || manifest.kind !== expected.kind) {
    problems.push(`manifest ${path} declares ${String(manifest.kind)} '${String(manifest.name)}', but its folder makes it ${expected.kind} '${expected.name}'; ignored`);
    return undefined;
  }
  const metadata: ManifestMetadata = {};
  for (const field of FIELDS) {
    const value = manifest[field];
    if (value !== undefined && value !== null && value !== "") metadata[field] = String(value);
  }
  return metadata;
}
