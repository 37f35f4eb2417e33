// Schema problems (zod issues) as the user reads them: `dotted.path: message`, one per issue.

/** What a zod issue carries that a user message needs (structural, so any zod version's issues fit). */
export interface ZodIssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export interface ZodIssueFormat {
  /** Path segments put before every issue's own path (e.g. the server instance a config block belongs to). */
  pathPrefix?: readonly PropertyKey[];
  /** Between two issues (default "; ", which keeps a CLI error on one line). */
  separator?: string;
  /** What names an issue about the value as a whole (empty path), e.g. "(row)"; by default its message stands alone. */
  wholeValue?: string;
}

/** `a.b: message; c: message`; an issue about the value as a whole (empty path) is its message alone, or `wholeValue: message`. */
export function formatZodIssues(issues: readonly ZodIssueLike[], format: ZodIssueFormat = {}): string {
  return issues
    .map((issue) => {
      const path = [...(format.pathPrefix ?? []), ...issue.path].map(String);
      if (path.length > 0) return `${path.join(".")}: ${issue.message}`;
      return format.wholeValue === undefined ? issue.message : `${format.wholeValue}: ${issue.message}`;
    })
    .join(format.separator ?? "; ");
}
