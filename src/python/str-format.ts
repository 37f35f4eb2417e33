// `template.format(*args, **kwargs)` for what NeMo Gym's scripts format: `{}` (numbered automatically), `{0}`,
// `{name}`, and `{{` / `}}` for braces; the values must be str already. A conversion (`{x!r}`), a format spec
// (`{x:>4}`), an attribute or index (`{x.y}`, `{x[0]}`) is refused rather than approximated, as is a field the
// arguments do not have (Python's KeyError / IndexError).
export function pythonFormat(template: string, args: readonly string[], kwargs: Readonly<Record<string, string>> = {}): string {
  let auto = 0;
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (match, field: string | undefined) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    if (field === undefined) throw new Error(`format string ${JSON.stringify(template)}: single '${match}'`);
    if (field === "") {
      if (auto >= args.length) throw new Error(`format string ${JSON.stringify(template)}: no positional argument ${auto}`);
      return args[auto++]!;
    }
    if (/^\d+$/.test(field)) {
      if (Number(field) >= args.length) throw new Error(`format string ${JSON.stringify(template)}: no positional argument ${field}`);
      return args[Number(field)]!;
    }
    if (!/^[A-Za-z_]\w*$/.test(field)) throw new Error(`format string ${JSON.stringify(template)}: field {${field}} is not ported (only {}, {n} and {name})`);
    if (!Object.hasOwn(kwargs, field)) throw new Error(`format string ${JSON.stringify(template)}: no argument '${field}'`);
    return kwargs[field]!;
  });
}
