/** One unit of a chat's work (a turn); must not throw (a throw is caught and reported). */
export type LaneJob = () => Promise<void>;

interface QueuedJob {
  run: LaneJob;
  /** What the job is about, for /status and for dropping it (/stop, /new). */
  label: string;
  /** Told when the job is dropped before it ran. */
  onDrop?: () => void;
}

interface Lane {
  running: QueuedJob | undefined;
  queue: QueuedJob[];
  /** Settles when the lane has run dry. */
  idle: PromiseWithResolvers<void>;
}

export interface LaneStatus {
  key: string;
  running: boolean;
  queued: number;
}

/**
 * One lane per session key: a chat's jobs run one after another in arrival order, while different
 * chats' lanes run in parallel. A lane exists only while it has work, so memory follows the number
 * of busy chats, not of chats ever seen.
 */
export class Lanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly onError: (key: string, err: unknown) => void = () => undefined) {}

  /** Whether the key's lane is running a job now. */
  busy(key: string): boolean {
    return this.lanes.get(key)?.running !== undefined;
  }

  /** Jobs of the key waiting behind the running one. */
  queued(key: string): number {
    return this.lanes.get(key)?.queue.length ?? 0;
  }

  /** Adds a job at the end of the key's lane; it starts at once when the lane is free. */
  enqueue(key: string, run: LaneJob, label = "message", onDrop?: () => void): void {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: undefined, queue: [], idle: Promise.withResolvers<void>() };
      this.lanes.set(key, lane);
    }
    lane.queue.push({ run, label, ...(onDrop ? { onDrop } : {}) });
    if (!lane.running) void this.pump(key, lane);
  }

  /** Drops the jobs waiting in the key's lane (not the running one); returns how many. */
  clear(key: string): number {
    const lane = this.lanes.get(key);
    if (!lane) return 0;
    const dropped = lane.queue.splice(0);
    for (const job of dropped) job.onDrop?.();
    return dropped.length;
  }

  /** Resolves when the key's lane has nothing running or queued. */
  whenIdle(key: string): Promise<void> {
    return this.lanes.get(key)?.idle.promise ?? Promise.resolve();
  }

  /** Resolves when every lane has run dry. */
  async allIdle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.all([...this.lanes.values()].map((l) => l.idle.promise));
  }

  status(): LaneStatus[] {
    return [...this.lanes].map(([key, lane]) => ({
      key,
      running: lane.running !== undefined,
      queued: lane.queue.length,
    }));
  }

  get size(): number {
    return this.lanes.size;
  }

  private async pump(key: string, lane: Lane): Promise<void> {
    for (let job = lane.queue.shift(); job; job = lane.queue.shift()) {
      lane.running = job;
      try {
        await job.run();
      } catch (err) {
        this.onError(key, err);
      }
      lane.running = undefined;
    }
    this.lanes.delete(key);
    lane.idle.resolve();
  }
}
