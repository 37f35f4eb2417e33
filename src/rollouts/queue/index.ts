// Collection over machines (BullMQ): the coordinator (`gym eval run --queue`) and the worker (`gym eval worker`).
export { collectOverQueue, type QueueCollectOptions } from "./coordinator.ts";
export { serveQueue, type QueueWorkerOptions, type QueueWorkerSummary } from "./worker.ts";
export { checkRedisReachable, parseQueueUrl, type QueueAddress } from "./connection.ts";
