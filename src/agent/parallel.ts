import { resolve, sep } from "node:path";

/** Tools that must never share a batch: they wait on the user. */
export const NEVER_PARALLEL_TOOLS: ReadonlySet<string> = new Set(["clarify"]);
export const MAX_TOOL_WORKERS = 8;

export interface BatchCall {
  name: string;
  args: Record<string, unknown>;
}

export interface ToolTraits {
  parallelSafe: boolean;
  pathScoped: boolean;
}

const within = (a: string, b: string): boolean => a === b || a.startsWith(b.endsWith(sep) ? b : b + sep);

export function pathsOverlap(a: string, b: string): boolean {
  return within(a, b) || within(b, a);
}

/**
 * Whether a batch may run concurrently: more than one call, no clarify, every tool parallel-safe or
 * path-scoped, and no two path-scoped calls touching overlapping paths. Default is sequential.
 */
export function shouldParallelize(
  calls: readonly BatchCall[],
  traits: (name: string) => ToolTraits | undefined,
  cwd: string,
): boolean {
  if (calls.length < 2) return false;
  const paths: string[] = [];
  for (const call of calls) {
    if (NEVER_PARALLEL_TOOLS.has(call.name)) return false;
    const t = traits(call.name);
    if (!t) continue; // unknown tools resolve instantly to an error; they don't block parallelism
    if (t.pathScoped) {
      const p = call.args.path;
      if (typeof p !== "string" || p === "") return false;
      const abs = resolve(cwd, p);
      if (paths.some((q) => pathsOverlap(q, abs))) return false;
      paths.push(abs);
    } else if (!t.parallelSafe) {
      return false;
    }
  }
  return true;
}

/** Runs tasks with at most `limit` in flight; results keep the input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
