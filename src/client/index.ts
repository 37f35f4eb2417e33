export * from "./http-client.ts";
export * from "./server-client.ts";
export * from "./inner-answer.ts";
export * from "./running-graph.ts";
