/** A background loop (the real-time clock ticker, the webhook dispatcher, the group commit): started by the server, and by tests that need it. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void> | void;
}
