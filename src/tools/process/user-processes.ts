import { getProcessRegistry, type ProcessRegistry, type ProcessView, type StartOptions } from "./registry.js";

/**
 * What one user's sessions see of a home's background processes: the ones they started, nothing
 * else. A chat user (`owner` = their user key) sees theirs; the profile's owner (`owner` undefined:
 * the CLI, cron, admin users, the API server) sees the processes no chat user owns. Another user's
 * process is answered exactly like an id that does not exist, so ids cannot be probed either.
 */
export class UserProcesses {
  constructor(
    private readonly registry: ProcessRegistry,
    readonly owner: string | undefined,
  ) {}

  private mine(view: ProcessView): boolean {
    return view.owner === this.owner;
  }

  /** Throws the same error as for an unknown id when `id` is not this user's. */
  private check(id: string): ProcessView {
    const view = this.get(id);
    if (!view) throw new Error(`No background process ${id}; use process(action="list") to see the ids.`);
    return view;
  }

  /** Starts a process owned by this user (see `ProcessRegistry.start`). */
  start(options: Omit<StartOptions, "owner">): Promise<ProcessView> {
    return this.registry.start({ ...options, ...(this.owner ? { owner: this.owner } : {}) });
  }

  /** This user's processes, newest first. */
  list(): ProcessView[] {
    return this.registry.list().filter((v) => this.mine(v));
  }

  get(id: string): ProcessView | undefined {
    const view = this.registry.get(id);
    return view && this.mine(view) ? view : undefined;
  }

  async wait(id: string, timeoutMs: number, signal?: AbortSignal): ReturnType<ProcessRegistry["wait"]> {
    this.check(id);
    return this.registry.wait(id, timeoutMs, signal);
  }

  async kill(id: string): Promise<ProcessView> {
    this.check(id);
    return this.registry.kill(id);
  }

  write(id: string, data: string): void {
    this.check(id);
    this.registry.write(id, data);
  }

  closeStdin(id: string): void {
    this.check(id);
    this.registry.closeStdin(id);
  }

  isPty(id: string): boolean {
    return this.get(id) !== undefined && this.registry.isPty(id);
  }
}

/** The background processes of `home` that the user `owner` (undefined: the profile's owner) may see. */
export function userProcesses(home: string, owner: string | undefined): UserProcesses {
  return new UserProcesses(getProcessRegistry(home), owner);
}
