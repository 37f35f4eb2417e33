/** NeMo Gym wire protocol: zod schemas and the TS types inferred from them. */
export * from "./responses.ts";
export * from "./chat.ts";
export * from "./gym.ts";
export { nullDefault, smartUnion } from "../python/pydantic/index.ts";
