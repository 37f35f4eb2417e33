// What NeMo Gym's structured_outputs does to a schema and to parsed XML/CSV before validating: every object
// schema is made strict, and XML/CSV strings (all their leaves are strings) are coerced to the types the
// schema asks for. On a failed conversion the string is kept, so validation reports it.
import { pythonFloat, pythonIntBig } from "../../python/numbers.ts";
import { AttributeError, ValueError } from "../../python/exception.ts";
import { isPyDict, pythonIterate, pythonTypeName, type PyDict, type PyValue } from "../../python/values.ts";
import { isDict, type StructuredDict, type StructuredValue } from "./value.ts";

/**
 * In place, every dict holding `properties` gets `required` = all its property names and
 * `additionalProperties: false`. Only dict values are descended into: schemas inside lists (`anyOf`, `oneOf`,
 * `allOf`, `prefixItems`) stay as written, as in NeMo Gym.
 */
export function strictifySchema(schema: PyValue): void {
  if (!isPyDict(schema)) return;
  if (schema.has("properties")) {
    // `list(properties)`: a new list, even of a list.
    schema.set("required", [...pythonIterate(schema.get("properties")!)]);
    schema.set("additionalProperties", false);
  }
  for (const value of schema.values()) strictifySchema(value);
}

/** A string converted to `integer`, `number` or `boolean` (`true`/`1`, `false`/`0`, any case); else unchanged. */
function coerceString(value: string, type: PyValue): StructuredValue {
  try {
    if (type === "integer") return pythonIntBig(value);
    if (type === "number") return pythonFloat(value);
    if (type === "boolean") {
      const lower = value.toLowerCase();
      if (lower === "true" || lower === "1") return true;
      if (lower === "false" || lower === "0") return false;
    }
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
  }
  return value;
}

const schemaGet = (schema: PyDict, key: string, fallback: PyValue): PyValue => (schema.has(key) ? schema.get(key)! : fallback);

/**
 * xmltodict's output walked alongside the schema: objects recurse into their declared properties; at an array,
 * a one-key dict (the `<items><item>…</item></items>` wrapper) is unwrapped and a single value becomes a list;
 * an empty element (None) becomes "" where a string is expected. A union `type` (a list) is left alone.
 */
export function coerceXmlTypes(data: StructuredValue, schema: PyValue): StructuredValue {
  if (!isPyDict(schema) || !schema.has("type")) return data;
  const type = schema.get("type")!;
  if (type === "object" && isDict(data)) {
    const properties = schemaGet(schema, "properties", new Map());
    const coerced: StructuredDict = new Map();
    for (const [key, value] of data) {
      coerced.set(key, isPyDict(properties) && typeof key === "string" && properties.has(key) ? coerceXmlTypes(value, properties.get(key)!) : value);
    }
    return coerced;
  }
  if (type === "array") {
    const items = schemaGet(schema, "items", new Map());
    let list = data;
    if (isDict(list) && list.size === 1) list = list.values().next().value!;
    if (!Array.isArray(list)) list = list === null ? [] : [list];
    return list.map((item) => coerceXmlTypes(item, items));
  }
  if (data === null && type === "string") return "";
  if (typeof data === "string") return coerceString(data, type);
  return data;
}

function attributeError(value: PyValue, attribute: string): AttributeError {
  return new AttributeError(`'${pythonTypeName(value)}' object has no attribute '${attribute}'`);
}

function csvScalar(value: StructuredValue, type: PyValue): StructuredValue {
  if (Array.isArray(type)) {
    if ((value === null || value === "") && type.includes("null")) return null;
    for (const option of type) {
      if (option === "null") continue;
      const result = csvScalar(value, option);
      if (typeof result !== "string" || option === "string") return result;
    }
    return value;
  }
  if (value === null || value === "") return value;
  if (typeof value === "string") return coerceString(value, type);
  // A surplus-fields list (key None) only ever meets the default "string" type, which keeps it.
  if ((type === "integer" || type === "number") && Array.isArray(value)) {
    const error = new TypeError(`${type === "integer" ? "int() argument must be a string, a bytes-like object or a real number" : "float() argument must be a string or a real number"}, not 'list'`);
    throw error;
  }
  return value;
}

/**
 * csv.DictReader rows coerced per column: the column's type is `items.properties[column].type` (the schema
 * itself when it has no `items`; "string" by default); "" is None where the type list allows "null"; a
 * union type takes the first member that converts. Raises as Python does on a schema that is not a dict.
 */
export function coerceCsvTypes(rows: StructuredDict[], schema: PyValue): StructuredDict[] {
  if (!isPyDict(schema)) throw attributeError(schema, "get");
  const itemsSchema = schemaGet(schema, "items", schema);
  if (!isPyDict(itemsSchema)) throw attributeError(itemsSchema, "get");
  const properties = schemaGet(itemsSchema, "properties", new Map());
  if (!isPyDict(properties)) throw attributeError(properties, "get");
  return rows.map((row) => {
    const coerced: StructuredDict = new Map();
    for (const [key, value] of row) {
      const propertySchema = typeof key === "string" && properties.has(key) ? properties.get(key)! : new Map();
      if (!isPyDict(propertySchema)) throw attributeError(propertySchema, "get");
      coerced.set(key, csvScalar(value, schemaGet(propertySchema, "type", "string")));
    }
    return coerced;
  });
}
