import type { EnvironmentProvider, ExecutionEnvironment } from "./types.js";

/** Pieces every backend shares: one environment per task id, connecting once. */

/**
 * One environment per task id, created on first use (subagents share their parent's task id, so
 * its cwd). `onDisposeAll` closes what the environments share (an ssh master connection).
 */
export function perTaskProvider<E extends ExecutionEnvironment>(
  create: (taskId: string) => E,
  onDisposeAll?: () => Promise<void>,
): EnvironmentProvider {
  const envs = new Map<string, E>();
  return {
    get(taskId: string): ExecutionEnvironment {
      let env = envs.get(taskId);
      if (!env) {
        env = create(taskId);
        envs.set(taskId, env);
      }
      return env;
    },
    async disposeAll(): Promise<void> {
      const all = [...envs.values()];
      envs.clear();
      await Promise.all(all.map((e) => e.dispose()));
      await onDisposeAll?.();
    },
  };
}

/**
 * An attempt (connect, start a container) shared by every caller while it runs and once it has
 * succeeded; after a failure, the next caller tries again.
 */
export class SharedAttempt<T> {
  private pending: Promise<T> | undefined;

  constructor(private readonly attempt: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.pending) return this.pending;
    const pending = this.attempt();
    this.pending = pending;
    pending.catch(() => {
      if (this.pending === pending) this.pending = undefined;
    });
    return pending;
  }

  /** Forgets the outcome: the next `get` tries again. */
  reset(): void {
    this.pending = undefined;
  }
}
