// Config values: command-line overrides, interpolation, directives and the ??? check.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ConfigError,
  applyDirectives,
  applyOverrides,
  collectMissingPaths,
  parseOverride,
  parseOverrideValue,
  raiseOnMissingValues,
  resolveConfig,
} from "../../src/config/index.ts";

describe("parseOverride", () => {
  it("reads the three operators and the dotted key", () => {
    assert.deepEqual(
      [parseOverride("+a.b=1"), parseOverride("++a.b=1"), parseOverride("a.b=1")].map(({ op, path }) => ({ op, path })),
      [
        { op: "add", path: ["a", "b"] },
        { op: "upsert", path: ["a", "b"] },
        { op: "replace", path: ["a", "b"] },
      ],
    );
  });

  it("parses a list of config paths", () => {
    assert.deepEqual(parseOverride("+config_paths=[a.yaml,b.yaml]").value, ["a.yaml", "b.yaml"]);
  });

  it("parses a dict with spaces after colons and commas", () => {
    assert.deepEqual(parseOverride("+num_repeats={agent_a: 2, _default: 1}").value, { agent_a: 2, _default: 1 });
  });

  it("parses a float under a nested key", () => {
    const override = parseOverride("++responses_create_params.temperature=0.7");
    assert.deepEqual(override.path, ["responses_create_params", "temperature"]);
    assert.equal(override.value, 0.7);
  });

  it("parses ~key as a delete", () => {
    const override = parseOverride("~a.b");
    assert.equal(override.op, "delete");
    assert.equal(override.hasValue, false);
  });

  it("rejects an argument without '='", () => {
    assert.throws(() => parseOverride("+policy_model_name"), (error: unknown) => error instanceof ConfigError && /key=value/.test(error.message));
  });

  it("rejects a malformed key", () => {
    assert.throws(() => parseOverride("+a b=1"), ConfigError);
  });
});

describe("parseOverrideValue (Hydra value grammar)", () => {
  const cases: Array<[string, unknown]> = [
    ["42", 42],
    ["-5", -5],
    ["1_000", 1000],
    ["0.5", 0.5],
    [".5", 0.5],
    ["1e-3", 0.001],
    ["true", true],
    ["False", false],
    ["null", null],
    ["NULL", null],
    ["007", "007"],
    ["'quoted, with comma'", "quoted, with comma"],
    ['"null"', "null"],
    ['"it\\"s"', 'it"s'],
    ["http://localhost:8000/v1", "http://localhost:8000/v1"],
    ["  spaced words  ", "spaced words"],
    ["", ""],
    ["${oc.env:HOME,/root}", "${oc.env:HOME,/root}"],
    ["[]", []],
    ["{}", {}],
    ["[1, [2, 3], {k: v}]", [1, [2, 3], { k: "v" }]],
    ["{url: http://h:1/v1, n: null, l: [a]}", { url: "http://h:1/v1", n: null, l: ["a"] }],
    ["a\\,b", "a,b"],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseOverrideValue(text), expected);
    });
  }

  it("rejects a bare top-level comma (a Hydra sweep) and says how to write a list", () => {
    assert.throws(() => parseOverrideValue("a.yaml,b.yaml"), /\[a,b\]/);
  });

  it("rejects an unterminated list", () => {
    assert.throws(() => parseOverrideValue("[a, b"), ConfigError);
  });
});

describe("applyOverrides", () => {
  const base = { a: { b: 1 }, list: [1, 2, 3] };

  it("+ adds a new key, creating parents", () => {
    assert.deepEqual(applyOverrides(base, ["+x.y.z=1"]).x, { y: { z: 1 } });
  });

  it("+ on an existing key is an error that suggests ++", () => {
    assert.throws(() => applyOverrides(base, ["+a.b=2"]), (error: unknown) => error instanceof ConfigError && error.message.includes("'++a.b=...'"));
  });

  it("++ adds or replaces", () => {
    const result = applyOverrides(base, ["++a.b=2", "++a.c=3"]);
    assert.deepEqual(result.a, { b: 2, c: 3 });
  });

  it("plain key=value replaces an existing key", () => {
    assert.deepEqual(applyOverrides(base, ["a.b=5"]).a, { b: 5 });
  });

  it("plain key=value on a missing key is an error that suggests +", () => {
    assert.throws(
      () => applyOverrides(base, ["a.nope=5"]),
      (error: unknown) => error instanceof ConfigError && error.kind === "override" && error.message.includes("'+a.nope=...'"),
    );
  });

  it("a list value replaces the list", () => {
    assert.deepEqual(applyOverrides(base, ["list=[9]"]).list, [9]);
  });

  it("~ deletes, and is an error when the key is absent", () => {
    assert.deepEqual(applyOverrides(base, ["~a.b"]).a, {});
    assert.throws(() => applyOverrides(base, ["~a.zzz"]), ConfigError);
  });

  it("does not modify its input", () => {
    const input = { a: { b: 1 } };
    applyOverrides(input, ["a.b=2"]);
    assert.deepEqual(input, { a: { b: 1 } });
  });
});

const NO_ENV = {};

describe("resolveConfig: ${path} interpolation", () => {
  it("a whole-string reference keeps the referenced value's type", () => {
    const resolved = resolveConfig({ n: 3, flag: true, obj: { k: [1] }, a: "${n}", b: "${flag}", c: "${obj}" }, NO_ENV);
    assert.equal(resolved.a, 3);
    assert.equal(resolved.b, true);
    assert.deepEqual(resolved.c, { k: [1] });
  });

  it("references inside a longer string become text", () => {
    const resolved = resolveConfig({ host: "h", port: 8000, url: "http://${host}:${port}/v1" }, NO_ENV);
    assert.equal(resolved.url, "http://h:8000/v1");
  });

  it("follows chains of references lazily, whatever the key order", () => {
    const resolved = resolveConfig({ a: "${b}", b: "${c.d}", c: { d: "end" } }, NO_ENV);
    assert.equal(resolved.a, "end");
  });

  it("reads nested absolute paths, relative paths and list elements", () => {
    const resolved = resolveConfig(
      { top: 1, list: ["x", "y"], group: { sibling: "s", rel: "${.sibling}", up: "${..top}", item: "${list[1]}", dotted: "${list.0}" } },
      NO_ENV,
    );
    assert.deepEqual(resolved.group, { sibling: "s", rel: "s", up: 1, item: "y", dotted: "x" });
  });

  it("walks through a value that is itself an interpolation", () => {
    const resolved = resolveConfig({ base: { url: "u" }, alias: "${base}", via: "${alias.url}" }, NO_ENV);
    assert.equal(resolved.via, "u");
  });

  it("keeps \\${...} as literal text", () => {
    assert.equal(resolveConfig({ a: 1, b: "\\${a}" }, NO_ENV).b, "${a}");
  });

  it("does not modify the raw config", () => {
    const raw = { a: "${b}", b: 1 };
    resolveConfig(raw, NO_ENV);
    assert.equal(raw.a, "${b}");
  });

  it("returns independent copies for a dict referenced twice", () => {
    const resolved = resolveConfig({ base: { port: 1 }, x: "${base}", y: "${base}" }, NO_ENV);
    (resolved.x as { port: number }).port = 2;
    assert.equal((resolved.y as { port: number }).port, 1);
  });

  it("a missing key is a ConfigError naming the key and where it is used", () => {
    assert.throws(
      () => resolveConfig({ policy_model: { openai_base_url: "${policy_base_url}" } }, NO_ENV),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.kind === "interpolation" &&
        error.message.includes("'policy_base_url'") &&
        error.message.includes("'policy_model.openai_base_url'") &&
        error.message.includes("++policy_base_url=<value>"),
    );
  });

  it("a missing key inside a longer string is reported too", () => {
    assert.throws(() => resolveConfig({ url: "http://${nohost}:1" }, NO_ENV), /'nohost'/);
  });

  it("a reference cycle is a ConfigError showing the cycle", () => {
    assert.throws(
      () => resolveConfig({ a: "${b}", b: "${c}", c: "${a}" }, NO_ENV),
      (error: unknown) => error instanceof ConfigError && /cycle: a -> b -> c -> a/.test(error.message),
    );
  });

  it("a node that contains a reference to itself is a cycle", () => {
    assert.throws(() => resolveConfig({ a: { b: "${a}" } }, NO_ENV), /cycle/);
  });

  it("a reference to an unset ??? value names the unset key", () => {
    assert.throws(() => resolveConfig({ a: "${b}", b: "???" }, NO_ENV), (error: unknown) => error instanceof ConfigError && /'b' is unset/.test(error.message));
  });

  it("an unsupported resolver is named in the error", () => {
    assert.throws(() => resolveConfig({ a: "${now:%Y}" }, NO_ENV), /unsupported resolver 'now'/);
  });
});

describe("resolveConfig: ${oc.env:...}", () => {
  it("reads the variable, always as a string", () => {
    assert.equal(resolveConfig({ port: "${oc.env:PORT}" }, { PORT: "8000" }).port, "8000");
  });

  it("uses the default when the variable is unset", () => {
    const resolved = resolveConfig(
      { a: "${oc.env:NOPE,fallback}", b: "${oc.env:NOPE,false}", c: "${oc.env:NOPE,null}", d: "${oc.env:NOPE,'x, y'}" },
      NO_ENV,
    );
    assert.deepEqual(resolved, { a: "fallback", b: "false", c: null, d: "x, y" });
  });

  it("prefers the variable over the default", () => {
    assert.equal(resolveConfig({ a: "${oc.env:SET,fallback}" }, { SET: "yes" }).a, "yes");
  });

  it("works inside a longer string and with a nested default", () => {
    const resolved = resolveConfig({ port: 9, url: "http://${oc.env:HOST}:${oc.env:NOPE,${port}}" }, { HOST: "h" });
    assert.equal(resolved.url, "http://h:9");
  });

  it("an unset variable without default is a ConfigError naming the variable", () => {
    assert.throws(
      () => resolveConfig({ model: { key: "${oc.env:OPENAI_KEY}" } }, NO_ENV),
      (error: unknown) => error instanceof ConfigError && error.message.includes("'OPENAI_KEY'") && error.message.includes("'model.key'"),
    );
  });
});

const model = (entrypoint: string) => ({ responses_api_models: { test_model: { entrypoint } } });

describe("_inherit_from", () => {
  it("replaces the node with the source merged with its own keys, and removes the source", () => {
    const result = applyDirectives({
      generic: model("app.py"),
      specific: { _inherit_from: "generic", responses_api_models: { test_model: { entrypoint: "app2.py" } } },
    });
    assert.deepEqual(result, { specific: model("app2.py") });
  });

  it("string form ${inherit_from:path} does the same", () => {
    assert.deepEqual(applyDirectives({ policy_model: "${inherit_from:generic}", generic: model("app.py") }), { policy_model: model("app.py") });
  });

  it("removes a nested source from its parent", () => {
    assert.deepEqual(applyDirectives({ a: { b: { c: 3 } }, a_prime: { b_prime: "${inherit_from:a.b.c}" } }), { a: { b: {} }, a_prime: { b_prime: 3 } });
  });

  it("two nodes may inherit from the same source", () => {
    const result = applyDirectives({ generic: { x: 1 }, one: { _inherit_from: "generic" }, two: { _inherit_from: "generic", y: 2 } });
    assert.deepEqual(result, { one: { x: 1 }, two: { x: 1, y: 2 } });
  });

  it("an unknown source path is a ConfigError naming it", () => {
    assert.throws(() => applyDirectives({ a: { _inherit_from: "nope.deeper" } }), (error: unknown) => error instanceof ConfigError && /'nope'/.test(error.message));
  });
});

describe("_copy", () => {
  it("copies the source and keeps it", () => {
    const result = applyDirectives({ base: model("app.py"), copy: { _copy: "base", responses_api_models: { test_model: { entrypoint: "app2.py" } } } });
    assert.deepEqual(result, { base: model("app.py"), copy: model("app2.py") });
  });

  it("string form ${copy:path} does the same", () => {
    assert.deepEqual(applyDirectives({ copy: "${copy:base}", base: model("app.py") }), { copy: model("app.py"), base: model("app.py") });
  });

  it("applies directives that the source itself carries", () => {
    const result = applyDirectives({ a: { _copy: "b" }, b: { _inherit_from: "c", x: 1 }, c: { y: 2 } });
    assert.deepEqual(result, { a: { y: 2, x: 1 }, b: { y: 2, x: 1 } });
  });

  it("a node copying itself is a ConfigError", () => {
    assert.throws(() => applyDirectives({ a: { _copy: "a" } }), /Circular _copy/);
  });
});

describe("_delete_key", () => {
  it("drops the listed keys", () => {
    const result = applyDirectives({ models: { _delete_key: "old, older", old: 1, older: 2, kept: 3 } });
    assert.deepEqual(result, { models: { kept: 3 } });
  });

  it("drops keys that arrive with a copy", () => {
    const result = applyDirectives({
      base: model("app.py"),
      variant: { _copy: "base", _delete_key: "responses_api_models", responses_api_models_2: { test_model: { entrypoint: "app.py" } } },
    });
    assert.deepEqual(result.variant, { responses_api_models_2: { test_model: { entrypoint: "app.py" } } });
  });

  it("a deleted branch's ??? is not reported as missing", () => {
    const result = applyDirectives({ models: { _delete_key: "old_model", old_model: { model: "???" }, new_model: { model: "m" } } });
    assert.deepEqual(collectMissingPaths(result), []);
  });
});

describe("??? values", () => {
  it("collects every unset path, in lists too", () => {
    assert.deepEqual(collectMissingPaths({ a: "???", b: { c: "ok", d: "???" }, e: ["ok", "???", { k: "???" }] }), ["a", "b.d", "e[1]", "e[2].k"]);
  });

  it("a copy of an unset value is unset too", () => {
    const result = applyDirectives({ target: "${copy:source.model}", source: { model: "???" } });
    assert.deepEqual(collectMissingPaths(result), ["target", "source.model"]);
  });

  it("raises ONE error listing every path with override examples", () => {
    assert.throws(
      () => raiseOnMissingValues({ policy_model: { openai_api_key: "???", openai_model: "???" }, agent: { name: "???" } }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.kind === "missing_values" &&
        error.message.startsWith("3 required config value(s)") &&
        error.message.includes("  - policy_model.openai_api_key\n  - policy_model.openai_model\n  - agent.name") &&
        error.message.includes("++policy_model.openai_api_key=<value>") &&
        error.paths.length === 3,
    );
  });
});
