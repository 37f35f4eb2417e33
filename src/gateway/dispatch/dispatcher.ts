// Who starts a queued trial, and when: FIFO per environment under its max_concurrency. A slot is held until
// `drive` resolves, which happens only once the trial is terminal (cleanup included).
export type DriveTrial = (requestId: string) => Promise<void>;

export interface TrialDispatcher {
  /** Idempotent: a trial already waiting or running is not queued twice. */
  enqueue(envKey: string, requestId: string): Promise<void>;
  close(): Promise<void>;
}

export interface EnvironmentSlots {
  envKey: string;
  maxConcurrency: number;
}
