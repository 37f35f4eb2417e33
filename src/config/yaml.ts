// YAML in and out, with the YAML 1.1 scalar rules PyYAML (and so OmegaConf) applies to NeMo Gym configs.
import { readFile } from "node:fs/promises";
import YAML, {
  YAMLError,
  type DocumentOptions,
  type ParseOptions,
  type ScalarTag,
  type SchemaOptions,
  type ToStringOptions,
  type Tags,
} from "yaml";
import { ConfigError } from "./errors.ts";
import { isDict } from "./dict.ts";
import type { ConfigDict } from "./types.ts";

const BOOL_TAG = "tag:yaml.org,2002:bool";
const TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp";
// PyYAML's YAML 1.1 booleans: unlike the yaml package's 1.1 schema, single-letter `y` / `n` stay strings.
const PY_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const PY_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const FLOAT_TAG = "tag:yaml.org,2002:float";
// OmegaConf's float resolver (its loader replaces PyYAML's): a float needs a digit, so a lone `.` (or `-.`) is a
// string there, where the yaml package's 1.1 float reads NaN. A float tag applies only where this also matches.
const OMEGACONF_FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function pyYamlTags(tags: Tags): Tags {
  const result: Tags = [];
  for (const tag of tags) {
    if (typeof tag === "string") {
      result.push(tag);
      continue;
    }
    // OmegaConf's loader drops the timestamp resolver, so dates stay strings.
    if (tag.tag === TIMESTAMP_TAG) continue;
    if (tag.tag === BOOL_TAG && "test" in tag && tag.test instanceof RegExp) {
      const isTrue = tag.test.test("true");
      const pyTag: ScalarTag = { ...(tag as ScalarTag), test: isTrue ? PY_TRUE : PY_FALSE };
      result.push(pyTag);
      continue;
    }
    if (tag.tag === FLOAT_TAG && "test" in tag && tag.test instanceof RegExp) {
      const own = tag.test;
      result.push({ ...(tag as ScalarTag), test: new RegExp(`(?=${OMEGACONF_FLOAT.source})${own.source}`) });
      continue;
    }
    result.push(tag);
  }
  return result;
}

const SCHEMA_OPTIONS: DocumentOptions & SchemaOptions = { version: "1.1", merge: true, customTags: pyYamlTags };
const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = { ...SCHEMA_OPTIONS, uniqueKeys: true, prettyErrors: true };
const DUMP_OPTIONS: DocumentOptions & SchemaOptions & ToStringOptions = {
  ...SCHEMA_OPTIONS,
  lineWidth: 0,
  minContentWidth: 0,
};

/**
 * Parse YAML text into a config dict. An empty document is `{}`; a document that is not a mapping,
 * or a syntax error, is a ConfigError naming `source` and, for syntax errors, the line and column.
 */
export function parseConfigYaml(text: string, source = "<yaml text>"): ConfigDict {
  let parsed: unknown;
  try {
    parsed = YAML.parse(text, PARSE_OPTIONS);
  } catch (error) {
    if (error instanceof YAMLError) {
      const position = error.linePos?.[0];
      const location = position ? ` at line ${position.line}, column ${position.col}` : "";
      const problem = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
      throw new ConfigError(`Malformed YAML in '${source}'${location}: ${problem}`, "yaml_syntax", { cause: error });
    }
    throw error;
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isDict(parsed)) {
    const got = Array.isArray(parsed) ? "a list" : `a ${typeof parsed}`;
    throw new ConfigError(`Config '${source}' must be a YAML mapping (key: value) at the top level, but it is ${got}.`, "invalid_config");
  }
  return parsed;
}

/** Read and parse a YAML config file. A missing file rejects with the original ENOENT error. */
export async function loadYamlFile(filePath: string): Promise<ConfigDict> {
  const text = await readFile(filePath, "utf8");
  return parseConfigYaml(text, filePath);
}

/** YAML text of a config, readable back by `parseConfigYaml` (and by PyYAML/OmegaConf). */
export function dumpYaml(config: ConfigDict): string {
  return new YAML.Document(config, { ...DUMP_OPTIONS, aliasDuplicateObjects: false }).toString(DUMP_OPTIONS);
}
