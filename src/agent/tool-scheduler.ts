import { resolve } from "node:path";
import { MAX_TOOL_WORKERS, NEVER_PARALLEL_TOOLS, pathsOverlap, type ToolTraits } from "./parallel.js";

/**
 * How a call may share time with others, by the rules a model's batch follows (parallel.ts):
 * parallel-safe tools run together, path-scoped ones together unless their paths overlap, and
 * anything else alone.
 */
export type CallSlot = { kind: "shared" } | { kind: "path"; path: string } | { kind: "exclusive" };

export function slotFor(
  name: string,
  args: Record<string, unknown>,
  traits: ToolTraits | undefined,
  cwd: string,
): CallSlot {
  if (NEVER_PARALLEL_TOOLS.has(name)) return { kind: "exclusive" };
  // Unknown tools resolve at once to an error; they hold nobody up.
  if (!traits) return { kind: "shared" };
  if (traits.pathScoped) {
    const p = args.path;
    return typeof p === "string" && p !== ""
      ? { kind: "path", path: resolve(cwd, p) }
      : { kind: "exclusive" };
  }
  return traits.parallelSafe ? { kind: "shared" } : { kind: "exclusive" };
}

/**
 * Admits calls that arrive concurrently (a script firing several at once) in arrival order, each
 * as soon as it may run beside the calls already running. First come, first served: a call that
 * must wait holds back the ones behind it, so an exclusive call is never starved.
 */
export class CallScheduler {
  private readonly running: CallSlot[] = [];
  private readonly waiting: Array<{ slot: CallSlot; admit: () => void }> = [];

  constructor(private readonly limit = MAX_TOOL_WORKERS) {}

  /** Runs `fn` once `slot` is admitted, and frees the slot when it settles. */
  async run<T>(slot: CallSlot, fn: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.fits(slot)) this.running.push(slot);
    else await new Promise<void>((admit) => this.waiting.push({ slot, admit }));
    try {
      return await fn();
    } finally {
      this.running.splice(this.running.indexOf(slot), 1);
      this.admitWaiting();
    }
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.slot)) {
      const next = this.waiting.shift()!;
      this.running.push(next.slot);
      next.admit();
    }
  }

  private fits(slot: CallSlot): boolean {
    if (this.running.length >= this.limit) return false;
    if (slot.kind === "exclusive") return this.running.length === 0;
    if (this.running.some((r) => r.kind === "exclusive")) return false;
    if (slot.kind === "shared") return true;
    return !this.running.some((r) => r.kind === "path" && pathsOverlap(r.path, slot.path));
  }
}
