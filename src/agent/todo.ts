import type { TodoItem, TodoService, TodoStatus } from "../tools/context.js";

export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed", "cancelled"];

/** Tool calls without a todo read or write before the plan-review note rides on a tool result. */
export const TODO_NUDGE_THRESHOLD = 10;

export const TODO_NUDGE_NOTE = `[${TODO_NUDGE_THRESHOLD}+ tool calls since your last todo update: call todo (no arguments) to review your plan and update it]`;

/** Rides on a failed tool result while the plan has open items. */
export const TODO_ERROR_HINT = "[This error may affect your plan: call todo (no arguments) to review it]";

const MARKS: Record<TodoStatus, string> = {
  pending: "[ ]",
  in_progress: "[>]",
  completed: "[x]",
  cancelled: "[-]",
};

class TodoError extends Error {}

/**
 * A session's task list. Lives on the agent only: it never enters the system prompt, so updating it
 * costs no prompt-cache prefix. The model sees it through the `todo` tool's results.
 */
export class TodoList implements TodoService {
  private items: TodoItem[] = [];
  private sinceUpdate = 0;
  private nudged = false;

  list(): TodoItem[] {
    this.touch();
    return this.items.map((i) => ({ ...i }));
  }

  write(raw: readonly Partial<TodoItem>[], merge: boolean): TodoItem[] {
    const next = merge ? this.items.map((i) => ({ ...i })) : [];
    const seen = new Set<string>();
    for (const r of raw) {
      const id = typeof r.id === "string" || typeof r.id === "number" ? String(r.id).trim() : "";
      if (!id) throw new TodoError("every item needs an id");
      if (seen.has(id)) throw new TodoError(`id '${id}' appears twice`);
      seen.add(id);
      if (r.status !== undefined && !TODO_STATUSES.includes(r.status)) {
        throw new TodoError(`item '${id}': status must be one of ${TODO_STATUSES.join(", ")}`);
      }
      const content = typeof r.content === "string" ? r.content.trim() : undefined;
      const existing = next.find((i) => i.id === id);
      if (existing) {
        if (content) existing.content = content;
        if (r.status) existing.status = r.status;
      } else {
        if (!content) throw new TodoError(`new item '${id}' needs content`);
        next.push({ id, content, status: r.status ?? "pending" });
      }
    }
    const active = next.filter((i) => i.status === "in_progress");
    if (active.length > 1) {
      throw new TodoError(
        `only one item may be in_progress (got ${active.map((i) => `'${i.id}'`).join(", ")}); mark the others pending or completed`,
      );
    }
    this.items = next;
    this.touch();
    return this.list();
  }

  /** Counts one tool call (not a todo call); true once when the nudge threshold is crossed. */
  countToolCall(): boolean {
    this.sinceUpdate++;
    if (this.sinceUpdate >= TODO_NUDGE_THRESHOLD && !this.nudged && this.items.some(open)) {
      this.nudged = true;
      return true;
    }
    return false;
  }

  /** True while some item is pending or in progress (the error hint applies). */
  hasOpenItems(): boolean {
    return this.items.some(open);
  }

  /**
   * Counts a batch's other tool calls and returns the note for its last result, if any: the nudge
   * once 10 calls went by without an update, else the error hint when a call failed mid-plan.
   */
  noteAfter(results: readonly { name: string; isError: boolean }[]): string | undefined {
    let nudge = false;
    for (const r of results) if (r.name !== "todo" && this.countToolCall()) nudge = true;
    if (nudge) return TODO_NUDGE_NOTE;
    if (results.some((r) => r.isError && r.name !== "todo") && this.hasOpenItems()) return TODO_ERROR_HINT;
    return undefined;
  }

  private touch(): void {
    this.sinceUpdate = 0;
    this.nudged = false;
  }

  /** Plain view used by the tool result and the compressor. */
  snapshot(): TodoItem[] {
    return this.items.map((i) => ({ ...i }));
  }
}

const open = (i: TodoItem): boolean => i.status === "pending" || i.status === "in_progress";

export const isTodoError = (err: unknown): err is Error => err instanceof TodoError;

/**
 * The todo state as text for the context compressor to append after it rewrites history (the one
 * time the list is re-injected: compression has already invalidated the cache). "" when empty.
 */
export function preservedTodoBlock(items: readonly TodoItem[]): string {
  if (items.length === 0) return "";
  const lines = items.map((i, n) => `- ${MARKS[i.status]} ${n + 1}. ${i.content} (${i.status}, id ${i.id})`);
  return ["[Your task list, preserved across context compression]", ...lines].join("\n");
}
