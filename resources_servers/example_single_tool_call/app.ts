// The smallest environment: one tool, no state, every rollout scores 1.
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";

export default resourcesServer({
  name: "SimpleWeatherResourcesServer",
  tools: {
    get_weather: tool({
      description: "Get the current weather for a city.",
      input: z.object({ city: z.string().describe("The city to get the weather for.") }),
      run: (_state, { city }) => ({ city, weather_description: `The weather in ${city} is cold.` }),
    }),
  },
  verify: { run: () => 1 },
});
