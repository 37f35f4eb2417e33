// client.ts (NeMo Gym's client.py) as a user runs it: a real process against a graph started by `gym env start`,
// printing the output items the agent answered; and one line, not a stack trace, when no graph is running.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../../src/config/index.ts";
import { refusedPort, startGym, type GymProcess } from "../../../src/testing/index.ts";

const CLIENT = join(import.meta.dirname, "../client.ts");
const CONFIGS = ["--config", "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "--config", "responses_api_models/scripted_model/configs/scripted_model.yaml"];

/** `node --import tsx client.ts ARGS`, as the README says to run it. */
async function runClient(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", CLIENT, ...args], { cwd: PROJECT_ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

let graph: GymProcess;
let headPort: string;

before(async () => {
  graph = startGym(["env", "start", ...CONFIGS, "++head_server.port=0"]);
  [, headPort] = (await graph.waitFor(/Head server: http:\/\/[\d.]+:(\d+)/)) as unknown as [string, string];
  await graph.waitFor(/policy_model \(responses_api_models\/scripted_model\) http/);
});
after(() => graph.stop());

test("client.ts sends client.py's request to the running simple_agent and prints the output items it answered", async () => {
  const result = await runClient([`++head_server.port=${headPort}`]);
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as Record<string, any>[];
  assert.deepEqual(output.map((item) => item.type), ["function_call", "function_call_output", "message"]);
  // The scripted model reads the city off the last word of "going out in sf tn".
  assert.equal(output[0]!.name, "get_weather");
  assert.deepEqual(JSON.parse(output[0]!.arguments), { city: "tn" });
  assert.equal(output[1]!.call_id, output[0]!.call_id);
  assert.deepEqual(JSON.parse(output[1]!.output), { city: "tn", weather_description: "The weather in tn is cold." });
  assert.equal(output[2]!.role, "assistant");
  assert.match(result.stdout, /^\[\n {4}\{\n {8}"/, "indented by four, as client.py's json.dumps(indent=4)");
});

test("client.ts with no graph running says so in one line and exits 1", async () => {
  const port = await refusedPort();
  const result = await runClient([`++head_server.port=${port}`]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, new RegExp(`^cannot reach the head server at http://127\\.0\\.0\\.1:${port}/global_config_dict_yaml \\(.*ECONNREFUSED.*\\): is a graph running \\(gym env start\\), or is its head server on another port \\(\\+\\+head_server\\.port=PORT\\)\\?\\n$`));
});
