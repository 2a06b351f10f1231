import type { GatewayLog } from "../services.js";
import { type GatewayState, type GatewayStatusFile, writeStatusFile } from "./status-file.js";

/** What changes while the gateway runs; the writer adds pid, home, state and times. */
export type StatusSnapshot = Omit<
  GatewayStatusFile,
  "pid" | "home" | "state" | "started_at" | "updated_at" | "stopped_at"
>;

export interface StatusWriterOptions {
  home: string;
  startedAt: Date;
  collect: () => StatusSnapshot;
  log: GatewayLog;
  /** How often the snapshot is checked for changes (default 1 s). */
  checkMs?: number;
  /** Longest time between two writes even without changes (default 5 s). */
  refreshMs?: number;
  now?: () => Date;
}

/**
 * Keeps gateway-status.json current: checks for changes every second (cheap: a small object) and
 * rewrites the file when something changed, and every few seconds anyway so readers can tell a
 * live gateway from a dead one by `updated_at`.
 */
export class StatusWriter {
  private state: GatewayState = "starting";
  private timer: NodeJS.Timeout | undefined;
  private lastBody = "";
  private lastWrite = 0;
  private readonly now: () => Date;

  constructor(private readonly options: StatusWriterOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Starts the periodic checks. The timer keeps the process alive while the gateway runs. */
  start(): void {
    this.write(true);
    const refresh = this.options.refreshMs ?? 5_000;
    this.timer = setInterval(() => {
      this.write(Date.now() - this.lastWrite >= refresh);
    }, this.options.checkMs ?? 1_000);
  }

  setState(state: GatewayState): void {
    this.state = state;
    this.write(true);
  }

  /** Writes now if something changed (a platform connected, a lane started). */
  poke(): void {
    this.write(false);
  }

  /** Stops the checks and writes the final state. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.state = "stopped";
    this.write(true, true);
  }

  private write(force: boolean, final = false): void {
    let snapshot: StatusSnapshot;
    try {
      snapshot = this.options.collect();
    } catch (err) {
      this.options.log("warn", "status collection failed", { error: (err as Error).message });
      return;
    }
    const body = JSON.stringify([this.state, snapshot]);
    if (!force && body === this.lastBody) return;
    const now = this.now();
    const status: GatewayStatusFile = {
      pid: process.pid,
      state: this.state,
      home: this.options.home,
      started_at: this.options.startedAt.toISOString(),
      updated_at: now.toISOString(),
      ...(final ? { stopped_at: now.toISOString() } : {}),
      ...snapshot,
    };
    try {
      writeStatusFile(this.options.home, status);
      this.lastBody = body;
      this.lastWrite = Date.now();
    } catch (err) {
      this.options.log("warn", "cannot write gateway-status.json", { error: (err as Error).message });
    }
  }
}
