// τ²-bench's telecom domain, tool by tool: every step of tests/fixtures/telecom-oracle.json (calls of the agent's and
// the user's tools, the functions tasks call to break the phone or check it, DB dumps) run on this folder's own
// fixture DBs, each output compared with what τ²-bench's own Python code gave for the same step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pythonStringRepr } from "../../../src/python/repr.ts";
import { markIntegerLiterals } from "../../../src/ports/tau2/domain.ts";
import { telecom } from "../../../src/ports/tau2/telecom.ts";
import { sameDb, Tau2Environment, type EnvFunctionCall } from "../../../src/ports/tau2/simulation.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const TELECOM = join(FIXTURES, "tau2_data", "tau2", "domains", "telecom");
const oracle = JSON.parse(readFileSync(join(FIXTURES, "telecom-oracle.json"), "utf8")) as { steps: { step: any[]; expected: any }[] };
const freshEnv = () => new Tau2Environment(telecom, telecom.loadDb!(readFileSync(join(TELECOM, "db.toml"), "utf8")), telecom.user!.loadDb(readFileSync(join(TELECOM, "user_db.toml"), "utf8")));

/** Python's str() of a function's return value, as the oracle wrote anything not a str/bool/None: remove_app_permission's (bool, str) tuple, get_available_plan_ids' list. */
const repr = (v: unknown) => (typeof v === "string" ? pythonStringRepr(v) : v === true ? "True" : v === false ? "False" : String(v));
const pyStr = (value: unknown, funcName: string): unknown => {
  if (!Array.isArray(value)) return value ?? null;
  const items = value.map(repr).join(", ");
  return funcName === "remove_app_permission" ? `(${items})` : `[${items}]`;
};

test("every oracle step: the tool messages, function results and DBs τ²-bench gives", () => {
  const env = freshEnv();
  oracle.steps.forEach(({ step, expected }, i) => {
    const where = `step ${i}: ${JSON.stringify(step)}`;
    if (step[0] === "call") {
      const [, requestor, name, args] = step;
      // The oracle's calls carry integers as the model would write them ("gb_amount": 2), as app.ts marks them.
      markIntegerLiterals(args, Object.keys(args).filter((k) => Number.isInteger(args[k])));
      const message = env.getResponse({ id: `c${i}`, name, arguments: args, requestor });
      assert.deepEqual({ content: message.content, error: message.error }, expected, where);
    } else if (step[0] === "fn") {
      const [, env_type, func_name, args] = step;
      assert.deepEqual({ result: pyStr(env.runFunction({ env_type, func_name, arguments: args } as EnvFunctionCall), func_name) }, expected, where);
    } else {
      assert.ok(sameDb(env.db, expected.db), `${where}: the agent's DB\n${JSON.stringify(env.db)}\n${JSON.stringify(expected.db)}`);
      assert.ok(sameDb(env.userDb, expected.user_db), `${where}: the user's DB\n${JSON.stringify(env.userDb)}\n${JSON.stringify(expected.user_db)}`);
    }
  });
});

test("sync_tools: the phone follows its line (suspended → no service), and a paid request pays the bill", () => {
  const env = freshEnv();
  env.runFunction({ env_type: "user", func_name: "set_user_info", arguments: { name: "Tomas Lind", phone_number: "555-020-0001" } });
  assert.equal(env.userDb!.surroundings.line_active, false, "L2003 is suspended");
  env.runFunction({ env_type: "user", func_name: "simulate_network_search", arguments: {} });
  assert.equal(env.getResponse({ id: "a", name: "check_status_bar", arguments: {}, requestor: "user" }).content, "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 64%");
  assert.equal(env.getResponse({ id: "b", name: "resume_line", arguments: { customer_id: "C2002", line_id: "L2003" }, requestor: "assistant" }).error, false);
  assert.equal(env.userDb!.surroundings.line_active, true, "synced after the agent's call");
  assert.match(env.getResponse({ id: "c", name: "reboot_device", arguments: {}, requestor: "user" }).content!, /📶⁴ Excellent \| 5G/);
});

test("a function the toolkit has not is a 501 naming it; a user tool called by the agent is an unknown tool", () => {
  const env = freshEnv();
  assert.throws(() => env.runFunction({ env_type: "user", func_name: "teleport", arguments: {} }), (e: any) => e.statusCode === 501 && /TelecomUserTools\.teleport/.test(e.message));
  assert.equal(env.getResponse({ id: "x", name: "toggle_airplane_mode", arguments: {}, requestor: "assistant" }).content, "Error: Tool 'toggle_airplane_mode' not found.");
});
