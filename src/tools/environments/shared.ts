import type { EnvironmentProvider, ExecutionEnvironment } from "./types.js";

/** Pieces every backend shares: one environment per task id, connecting once. */

/** An environment that can start a subagent's own environment from its current state. */
export interface Forkable<E> extends ExecutionEnvironment {
  fork(): E;
}

/**
 * One environment per task id, created on first use; a subagent's is forked from its parent's.
 * `onDisposeAll` closes what the environments share (an ssh master connection).
 */
export function perTaskProvider<E extends Forkable<E>>(
  create: (taskId: string) => E,
  onDisposeAll?: () => Promise<void>,
): EnvironmentProvider {
  const envs = new Map<string, E>();
  const get = (taskId: string): E => {
    let env = envs.get(taskId);
    if (!env) {
      env = create(taskId);
      envs.set(taskId, env);
    }
    return env;
  };
  return {
    get,
    fork(parentTaskId: string, childTaskId: string): ExecutionEnvironment {
      let env = envs.get(childTaskId);
      if (!env) {
        env = get(parentTaskId).fork();
        envs.set(childTaskId, env);
      }
      return env;
    },
    async release(taskId: string): Promise<void> {
      const env = envs.get(taskId);
      if (!env) return;
      envs.delete(taskId);
      await env.dispose().catch(() => undefined);
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

  /** The attempt under way or succeeded, if any, without starting one. */
  peek(): Promise<T> | undefined {
    return this.pending;
  }

  /** Forgets the outcome: the next `get` tries again. */
  reset(): void {
    this.pending = undefined;
  }
}
