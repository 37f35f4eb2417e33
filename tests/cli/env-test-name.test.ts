// Which environment `gym env test` checks: a bare name, the folder's path as a shell completes it, NeMo Gym's
// `+entrypoint=resources_servers/NAME` or `--resources-server NAME`; anything else is refused, naming the word.
import { test } from "node:test";
import assert from "node:assert/strict";
import { environmentName } from "../../src/cli/env-test.ts";

test("a name, the folder's path (trailing slash or not) and NeMo Gym's spellings all name the folder", () => {
  assert.equal(environmentName(["code_gen"], undefined), "code_gen");
  assert.equal(environmentName(["resources_servers/code_gen"], undefined), "code_gen");
  assert.equal(environmentName(["./resources_servers/code_gen/"], undefined), "code_gen");
  assert.equal(environmentName(["+entrypoint=resources_servers/code_gen"], undefined), "code_gen");
  assert.equal(environmentName([], "code_gen"), "code_gen");
});

test("a path outside resources_servers/, or two names, is refused naming what was given", () => {
  assert.throws(() => environmentName(["benchmarks/aime24"], undefined), /the environment 'benchmarks\/aime24' must be resources_servers\/<name>/);
  assert.throws(() => environmentName(["+entrypoint=responses_api_agents/simple_agent"], undefined), /entrypoint 'responses_api_agents\/simple_agent' must be resources_servers\/<name>/);
  assert.throws(() => environmentName(["code_gen"], "mcqa"), /give the environment one name/);
});
