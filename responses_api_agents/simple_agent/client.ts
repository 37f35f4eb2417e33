// NeMo Gym's simple_agent/client.py: one request to a running simple_agent's /v1/responses — a developer message,
// a user message and the get_weather tool — and the output items it answers, as indented JSON. Start a graph first:
//
//   npm run gym -- env start --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml \
//     --config responses_api_models/scripted_model/configs/scripted_model.yaml
//   node --import tsx responses_api_agents/simple_agent/client.ts            # ++head_server.port=PORT for another graph
import { HeadServerUnreachableError, raiseForStatus, serverClientFromGlobalConfig, type ServerClient } from "../../src/client/index.ts";

const AGENT = "example_single_tool_call_simple_agent";

const request = {
  input: [
    { role: "developer", content: "You are a helpful personal assistant that aims to be helpful and reduce any pain points the user has." },
    { role: "user", content: "going out in sf tn" },
  ],
  tools: [
    {
      type: "function",
      name: "get_weather",
      description: "",
      parameters: {
        type: "object",
        properties: { city: { type: "string", description: "" } },
        required: ["city"],
        additionalProperties: false,
      },
      strict: true,
    },
  ],
};

let client: ServerClient;
try {
  client = await serverClientFromGlobalConfig();
} catch (error) {
  if (!(error instanceof HeadServerUnreachableError)) throw error;
  console.error(`${error.message}: is a graph running (gym env start), or is its head server on another port (++head_server.port=PORT)?`);
  process.exit(1);
}
try {
  const answer = raiseForStatus(await client.post(AGENT, "/v1/responses", { json: request }), `${AGENT}/v1/responses`);
  console.log(JSON.stringify(answer.json<{ output: unknown }>().output, null, 4));
} finally {
  await client.close();
}
