// The three-server counter graph the launcher tests start with `gym env start` as a real process.
import { randomUUID } from "node:crypto";
import { HttpClient } from "../../src/client/index.ts";
import { startGym, type GymProcess } from "./gym-process.ts";

export const COUNTER_CONFIGS = [
  "--config",
  "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml",
  "--config",
  "responses_api_models/scripted_model/configs/scripted_model.yaml",
];
export const READY = /All 3 \/ 3 servers ready! Head server: (http:\/\/[\d.]+:(\d+))/;
export const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 10_000, maxRetries: 0 });

export async function startGraph(
  args: string[] = ["env", "start", ...COUNTER_CONFIGS, "++head_server.port=0"],
  marker = randomUUID(),
  env: Record<string, string> = {},
): Promise<{ gym: GymProcess; headUrl: string; headPort: string; pids: number[] }> {
  const gym = startGym(args, { env: { GYM_TEST_MARKER: marker, ...env } });
  const [, headUrl, headPort] = await gym.waitFor(READY);
  const instances = (await http.request(`${headUrl}/server_instances`)).json<{ pid: number; status: string }[]>();
  return { gym, headUrl: headUrl!, headPort: headPort!, pids: instances.map((i) => i.pid) };
}

