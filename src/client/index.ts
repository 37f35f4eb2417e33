export * from "./http-client.ts";
export * from "./server-client.ts";
export * from "./inner-answer.ts";
