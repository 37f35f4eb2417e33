// Temp-dir projects for config tests: every file is written fresh, nothing is read from outside the temp dir.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempProject {
  dir: string;
  path(relative: string): string;
  write(relative: string, text: string): Promise<string>;
  remove(): Promise<void>;
}

export async function tempProject(files: Record<string, string> = {}): Promise<TempProject> {
  const dir = await mkdtemp(join(tmpdir(), "gym-config-test-"));
  const project: TempProject = {
    dir,
    path: (relative) => join(dir, relative),
    async write(relative, text) {
      const target = join(dir, relative);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, text);
      return target;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  for (const [relative, text] of Object.entries(files)) await project.write(relative, text);
  return project;
}

export function recordingLogger(): { warnings: string[]; warn(message: string): void } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** Strip the common indentation so YAML fixtures can be written indented inside tests. */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((out, part, index) => out + part + (index < values.length ? String(values[index]) : ""), "");
  const lines = text.replace(/^\n/, "").split("\n");
  const indent = Math.min(...lines.filter((line) => line.trim() !== "").map((line) => line.match(/^ */)![0].length));
  return lines.map((line) => line.slice(indent)).join("\n");
}

// Modelled on NeMo Gym's own configs (resources_servers/example_single_tool_call, simple_agent, openai_model).
export const RESOURCES_SERVER_YAML = yaml`
  example_single_tool_call:
    resources_servers:
      example_single_tool_call:
        entrypoint: app.py
        domain: agent
        verified: false
        description: Basic single-step tool calling
  example_single_tool_call_simple_agent:
    responses_api_agents:
      simple_agent:
        entrypoint: app.py
        resources_server:
          type: resources_servers
          name: example_single_tool_call
        model_server:
          type: responses_api_models
          name: policy_model
        datasets:
        - name: example
          type: example
          jsonl_fpath: resources_servers/example_single_tool_call/data/example.jsonl
`;

export const SIMPLE_AGENT_YAML = yaml`
  simple_agent:
    responses_api_agents:
      simple_agent:
        entrypoint: app.py
        resources_server:
          type: resources_servers
          name: ???
        model_server:
          type: responses_api_models
          name: policy_model
`;

export const OPENAI_MODEL_YAML = yaml`
  policy_model:
    responses_api_models:
      openai_model:
        entrypoint: app.py
        openai_base_url: \${policy_base_url}
        openai_api_key: \${policy_api_key}
        openai_model: \${policy_model_name}
        openai_default_headers: {}
        drop_input_reasoning_items: \${oc.env:POLICY_DROP_REASONING_ITEMS,false}
`;

export const ENV_YAML = yaml`
  policy_base_url: https://api.example.com/v1
  policy_api_key: sk-test-secret
  policy_model_name: gpt-test
`;
