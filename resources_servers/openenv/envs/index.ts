// The OpenEnv environments this project serves itself, by the dotted class paths NeMo Gym's configs name.
import type { OpenEnvEnvironmentSpec } from "../../../src/ports/openenv/env-server.ts";
import type { SandboxProvider } from "../../../src/sandbox/index.ts";
import { codingEnvironment } from "./coding.ts";
import { echoEnvironment } from "./echo.ts";
import { mazeEnvironment } from "./maze.ts";

export interface BuiltinEnvironment {
  /** The short name (`gym`-less standalone start: serve-env.ts <name>). */
  name: "echo" | "coding" | "maze";
  /** The Action class NeMo Gym's config pairs with it. */
  actionClass: string;
  isMcp: boolean;
  needsSandbox: boolean;
  /** The parameters of its POST /step tool as GET /tools shows them (non-MCP only): the Action model's own fields. */
  stepParameters?: Record<string, unknown>;
  stepDescription?: string;
  spec(options: { sandbox?: SandboxProvider; cellTimeoutMs?: number }): OpenEnvEnvironmentSpec;
}

export const BUILTIN_ENVIRONMENTS: Readonly<Record<string, BuiltinEnvironment>> = {
  "echo_env.server.echo_environment.EchoEnvironment": {
    name: "echo",
    actionClass: "openenv.core.env_server.mcp_types.CallToolAction",
    isMcp: true,
    needsSandbox: false,
    spec: () => echoEnvironment,
  },
  "coding_env.server.python_codeact_env.PythonCodeActEnv": {
    name: "coding",
    actionClass: "coding_env.models.CodeAction",
    isMcp: false,
    needsSandbox: true,
    stepDescription: "Run Python code and see its output.",
    stepParameters: { type: "object", properties: { code: { type: "string", description: "Python code to execute" } }, required: ["code"], additionalProperties: false },
    spec: ({ sandbox, cellTimeoutMs }) => {
      if (!sandbox) throw new Error("the coding environment runs its code in a sandbox: none was given");
      return codingEnvironment({ sandbox, cellTimeoutMs });
    },
  },
  "maze_env.server.maze_env_environment.MazeEnvironment": {
    name: "maze",
    actionClass: "maze_env.models.MazeAction",
    isMcp: false,
    needsSandbox: false,
    stepDescription: "Make one move in the maze.",
    stepParameters: { type: "object", properties: { action: { type: "integer", description: "0 up, 1 down, 2 left, 3 right" } }, required: ["action"], additionalProperties: false },
    spec: () => mazeEnvironment,
  },
};

export const builtinByName = (name: string) => Object.entries(BUILTIN_ENVIRONMENTS).find(([, env]) => env.name === name);
