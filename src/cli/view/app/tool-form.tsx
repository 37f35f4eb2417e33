// A form for one tool, generated from its JSON Schema parameters (GET /tools): a number field for a number, a
// checkbox for a boolean, a list for an enum, a text field for a string, JSON for anything nested.
import { useState } from "preact/hooks";
import type { JsonSchema, ToolDefinition } from "./api.ts";

const typeOf = (schema: JsonSchema) => (Array.isArray(schema.type) ? schema.type.find((type) => type !== "null") : schema.type) ?? "string";

/** The field's text as the value its schema asks for; a message naming the field when it is not one. */
function parseField(name: string, schema: JsonSchema, text: string): unknown {
  const type = typeOf(schema);
  if (schema.enum) return schema.enum.find((option) => String(option) === text) ?? text;
  if (type === "integer" || type === "number") {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value) || (type === "integer" && !Number.isInteger(value))) throw new Error(`${name}: '${text}' is not ${type === "integer" ? "an integer" : "a number"}`);
    return value;
  }
  if (type === "boolean") return text === "true";
  if (type === "object" || type === "array") {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${name}: not valid JSON`);
    }
  }
  return text;
}

function initialText(schema: JsonSchema): string {
  if (schema.default !== undefined) return typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default);
  const type = typeOf(schema);
  if (schema.enum) return String(schema.enum[0] ?? "");
  return type === "object" ? "{}" : type === "array" ? "[]" : type === "boolean" ? "false" : "";
}

export function ToolForm({ tool, disabled, onCall }: { tool: ToolDefinition; disabled: boolean; onCall: (args: Record<string, unknown>) => void }) {
  const properties = Object.entries(tool.parameters?.properties ?? {});
  const required = new Set(tool.parameters?.required ?? []);
  const [texts, setTexts] = useState<Record<string, string>>(() => Object.fromEntries(properties.map(([name, schema]) => [name, initialText(schema)])));
  const [error, setError] = useState<string | null>(null);
  const set = (name: string, text: string) => setTexts({ ...texts, [name]: text });
  const submit = (event: Event) => {
    event.preventDefault();
    try {
      const args: Record<string, unknown> = {};
      for (const [name, schema] of properties) {
        const text = texts[name] ?? "";
        if (text === "" && !required.has(name) && typeOf(schema) !== "string") continue;
        args[name] = parseField(name, schema, text);
      }
      setError(null);
      onCall(args);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <form class="tool-form" onSubmit={submit} data-testid={`tool-${tool.name}`}>
      <div class="tool-head">
        <code>{tool.name}</code> <span class="muted">{tool.description}</span>
      </div>
      {properties.map(([name, schema]) => {
        const type = typeOf(schema);
        const value = texts[name] ?? "";
        const onInput = (event: Event) => set(name, (event.target as HTMLInputElement).value);
        return (
          <label class="field">
            <span>
              {name}
              {required.has(name) ? " *" : ""} <span class="muted">{type}</span>
            </span>
            {schema.enum ? (
              <select value={value} onChange={onInput} name={name}>
                {schema.enum.map((option) => (
                  <option value={String(option)}>{String(option)}</option>
                ))}
              </select>
            ) : type === "boolean" ? (
              <input type="checkbox" name={name} checked={value === "true"} onChange={(event) => set(name, String((event.target as HTMLInputElement).checked))} />
            ) : type === "object" || type === "array" ? (
              <textarea name={name} value={value} onInput={onInput} rows={3} />
            ) : type === "integer" || type === "number" ? (
              <input name={name} type="number" step={type === "number" ? "any" : "1"} value={value} onInput={onInput} title={schema.description} />
            ) : (
              <input name={name} type="text" value={value} onInput={onInput} title={schema.description} />
            )}
          </label>
        );
      })}
      {error && <p class="error">{error}</p>}
      <button type="submit" disabled={disabled} data-testid={`call-${tool.name}`}>
        call {tool.name}
      </button>
    </form>
  );
}
