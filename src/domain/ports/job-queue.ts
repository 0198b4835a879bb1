/** Durable background work: a job sent is done at least once, also across restarts. */
export interface JobQueue {
  send(queue: string, data: Record<string, unknown>): Promise<void>;
}
