// NeMo Gym's MCP smoke test: one plain tool route (POST /get_weather) that `expose_tools_over_mcp: true` also
// serves at /mcp. A call records against the caller's Gym session, and /verify rewards a rollout only if that
// same session asked for the expected city's weather and the final answer repeats the sentence the tool gave.
// The weather is a fixed sentence made from the city, so nothing here needs the network.
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";

const weatherSentence = (city: string) => `The weather in ${city} is sunny and 72 F.`;

/** NeMo Gym's default city when a row's verifier_metadata names none. */
const DEFAULT_CITY = "Paris";

/**
 * Python's str.casefold for the comparisons (full case folding: "ß" → "ss", "ς" → "σ", "ﬁ" → "fi"): upper- then
 * lower-casing folds as casefold does except for the dotless ı, which casefold keeps and toUpperCase makes an I.
 */
const casefold = (text: string) => [...text].map((ch) => (ch === "ı" ? ch : ch.toUpperCase().toLowerCase())).join("");

interface WeatherCall {
  city: string;
  weather: string;
}
interface Session {
  expected_city?: string;
  weather_calls: WeatherCall[];
}

// Ground truth travels in verifier_metadata (NeMo Gym's convention): {"expected_city": "Paris"}. A city that is
// not a string is NeMo Gym's 500 (str has no casefold); here it is a 422 naming the field.
const VerifierMetadata = z.looseObject({ expected_city: z.string().optional() }).nullish();

/** The text parts of the assistant messages, joined by newlines (NeMo Gym's `_extract_assistant_text`). */
function assistantText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content as unknown;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof part?.text === "string") texts.push(part.text);
  }
  return texts.join("\n").trim();
}

/** The fields this response sets itself; the request's others (verifier_metadata, …) are echoed after them. */
const OWN_FIELDS = new Set(["responses_create_params", "response", "reward", "expected_weather", "tool_call_seen", "final_response_mentions_weather"]);

export default resourcesServer({
  name: "ExampleMCPWeatherResourcesServer",
  seed: z.looseObject({ verifier_metadata: VerifierMetadata }),
  // A tool called before /seed_session records into a fresh session (NeMo Gym's setdefault).
  state: (seed): Session => (seed === undefined ? { weather_calls: [] } : { expected_city: seed.verifier_metadata?.expected_city ?? DEFAULT_CITY, weather_calls: [] }),
  tools: {
    get_weather: tool({
      description: "Get a deterministic weather report for a city.",
      input: z.object({ city: z.string() }),
      run: (session: Session, { city }) => {
        const weather = weatherSentence(city);
        session.weather_calls.push({ city, weather });
        return { weather };
      },
    }),
  },
  verify: {
    input: z.looseObject({ verifier_metadata: VerifierMetadata }),
    run(session, body) {
      // The row's city, not the seeded one: NeMo Gym's verify reads verifier_metadata again.
      const expectedCity = body.verifier_metadata?.expected_city ?? DEFAULT_CITY;
      const expectedWeather = weatherSentence(expectedCity);
      // A city match suffices (the sentence follows from it), case-insensitively: get_weather("PARIS") counts.
      const toolCallSeen = (session?.weather_calls ?? []).some((call) => casefold(call.city) === casefold(expectedCity));
      const mentionsWeather = casefold(assistantText(body.response)).includes(casefold(expectedWeather));
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key)));
      return {
        reward: toolCallSeen && mentionsWeather ? 1 : 0,
        expected_weather: expectedWeather,
        tool_call_seen: toolCallSeen,
        final_response_mentions_weather: mentionsWeather,
        // NeMo Gym's request model declares verifier_metadata, so its dump carries it even when the row has none.
        verifier_metadata: body.verifier_metadata ?? null,
        ...echoed,
      };
    },
  },
});
