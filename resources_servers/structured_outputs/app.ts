// Structured outputs: does the answer follow the row's schema? In text mode the whole answer is parsed in the
// row's format (json, yaml, xml, toml, csv — no code-fence stripping) and validated; in tool-call mode the one
// function call's arguments (or one key of them) are. Either way the schema is strictified first (every
// declared property required, no others allowed). Content is never compared. The row's descriptive fields are
// echoed for metric breakdowns.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { evaluateText, evaluateToolCall, SCHEMA_TYPES } from "../../src/ports/structured/structured-outputs.ts";
import { structuredOutputsMetrics } from "./metrics.ts";

const optionalText = z.string().nullable().default(null);
const optionalInt = z.number().int().nullable().default(null);
const optionalBool = z.boolean().nullable().default(null);

/** NeMo Gym's StructuredOutputsVerifyRequest fields, in its response model's order. */
const StructuredOutputsRow = z.object({
  schema_str: z.string(),
  schema_type: z.enum(SCHEMA_TYPES).default("json"),
  problem_type: optionalText,
  schema_repr: optionalText,
  source_format: optionalText,
  num_turns: optionalInt,
  source_record_id: optionalText,
  response_mode: z.string().nullable().default("text"),
  tool_name: optionalText,
  tool_schema_mode: optionalText,
  tool_payload_key: optionalText,
  tool_choice: optionalText,
  parallel_tool_calls: optionalBool,
  source_schema_type: optionalText,
  num_tools: optionalInt,
  num_distractors: optionalInt,
  has_distractors: optionalBool,
  instruction_layout: optionalText,
  instruction_detail_level: optionalText,
  system_instruction_style: optionalText,
  tool_name_style: optionalText,
  distractor_style: optionalText,
  tool_union_mode: optionalText,
});

export default resourcesServer({
  name: "StructuredOutputsResourcesServer",
  config: z.looseObject({ xml_coerce_types: z.boolean().default(true) }),
  tools: {},
  verify: {
    input: StructuredOutputsRow,
    run(_state, request, { config }) {
      const { response, schema_str, schema_type } = request;
      const evaluation =
        request.response_mode === "tool_call"
          ? evaluateToolCall(response, schema_str, { toolName: request.tool_name, toolPayloadKey: request.tool_payload_key })
          : evaluateText(schema_type, schema_str, responseOutputText(response), { xmlCoerceTypes: config.xml_coerce_types });
      const { schema_str: _s, schema_type: _t, ...described } = StructuredOutputsRow.parse(request);
      return { reward: evaluation.reward, schema_str, schema_type, error_type: evaluation.error_type, error_message: evaluation.error_message, ...described };
    },
  },
  computeMetrics: structuredOutputsMetrics,
});
