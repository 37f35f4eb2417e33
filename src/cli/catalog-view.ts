// How `gym list` and `gym search` print: a plain table with a title (never truncated, so piped output keeps every
// cell), the inspect view of one component (or its JSON), and the messages for no match and for an unknown name.
import { relative, isAbsolute } from "node:path";
import { UserError } from "../config/errors.ts";
import { didYouMean } from "../config/catalog/index.ts";

/** Columns padded to their widest cell, two spaces apart, a rule under the header. */
export function textTable(title: string, headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [title, line(headers), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

export interface Inspection {
  name: string;
  /** "environment", "benchmark", "agent", "model", "resources server". */
  type: string;
  domain?: string | null;
  description?: string | null;
  details: Record<string, string>;
  usage?: string | null;
  ported: boolean;
}

/** NeMo Gym's inspect view: header, description, details, usage example; JSON has the same fields (and `ported`). */
export function renderInspection(inspection: Inspection, asJson: boolean): string {
  if (asJson) {
    return JSON.stringify({
      name: inspection.name,
      type: inspection.type,
      domain: inspection.domain ?? null,
      description: inspection.description ?? null,
      details: inspection.details,
      usage_example: inspection.usage ?? null,
      ported: inspection.ported,
    });
  }
  const sections = [`The ${inspection.name} ${inspection.type}${inspection.domain ? ` (domain: ${inspection.domain})` : ""}`];
  if (inspection.description) sections.push(inspection.description);
  const details = Object.entries(inspection.details);
  if (details.length > 0) sections.push(`Details:\n${details.map(([label, value]) => `${label}: ${value}`).join("\n")}`);
  if (inspection.usage) sections.push(`Usage example:\n${inspection.usage}`);
  return sections.join("\n\n");
}

/** "No environments match 'x'." / "No environments found." */
export function noMatches(plural: string, query: string | undefined): string {
  return query ? `No ${plural} match '${query}'.` : `No ${plural} found.`;
}

/** `Unknown agent 'x'. Did you mean \`y\`?` as a user error (one line, exit 2). */
export function unknownComponent(name: string, candidates: Iterable<string>, type: string): UserError {
  return new UserError(`Unknown ${type} '${name}'.${didYouMean(name, candidates)}`);
}

/** A path as the user would type it: relative to the working directory when below it. */
export function displayPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

export const yesNo = (ported: boolean, why?: string | null) => (ported ? "yes" : `no${why ? ` (${why})` : ""}`);
