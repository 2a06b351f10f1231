import { describe, expect, it } from "vitest";
import { preservedTodoBlock, TODO_NUDGE_THRESHOLD, TodoList } from "../../src/agent/todo.js";
import { todoTool } from "../../src/tools/builtin/todo.js";
import type { ToolContext } from "../../src/tools/context.js";

const call = (todos: TodoList, args: Record<string, unknown>) =>
  JSON.parse(todoTool(args, { todos } as unknown as ToolContext));

describe("todo tool", () => {
  it("reads an empty list with no arguments", () => {
    expect(call(new TodoList(), {}).todos).toEqual([]);
  });

  it("replaces the list, then merges by id, returning the full list each time", () => {
    const t = new TodoList();
    const first = call(t, {
      todos: [
        { id: "1", content: "scaffold", status: "in_progress" },
        { id: "2", content: "endpoint" },
      ],
    });
    expect(first.todos).toEqual([
      { id: "1", content: "scaffold", status: "in_progress" },
      { id: "2", content: "endpoint", status: "pending" },
    ]);
    const merged = call(t, {
      merge: true,
      todos: [
        { id: "1", status: "completed" },
        { id: "2", status: "in_progress" },
        { id: "3", content: "docs" },
      ],
    });
    expect(merged.todos.map((i: { status: string }) => i.status)).toEqual([
      "completed",
      "in_progress",
      "pending",
    ]);
    expect(merged.summary).toMatchObject({ total: 3, completed: 1, in_progress: 1, pending: 1 });
    const replaced = call(t, { todos: [{ id: "9", content: "fresh plan" }] });
    expect(replaced.todos).toEqual([{ id: "9", content: "fresh plan", status: "pending" }]);
  });

  it("allows only one in_progress item and leaves the list unchanged on errors", () => {
    const t = new TodoList();
    call(t, {
      todos: [
        { id: "a", content: "A", status: "in_progress" },
        { id: "b", content: "B" },
      ],
    });
    const r = call(t, { merge: true, todos: [{ id: "b", status: "in_progress" }] });
    expect(r.error).toMatch(/only one item may be in_progress/);
    expect(r.todos.map((i: { status: string }) => i.status)).toEqual(["in_progress", "pending"]);
    expect(call(t, { todos: [{ id: "x", content: "X", status: "blocked" }] }).error).toMatch(/status/);
    expect(call(t, { todos: [{ id: "new" }], merge: true }).error).toMatch(/needs content/);
    expect(call(t, { todos: [{ content: "no id" }] }).error).toMatch(/id/);
    expect(call(t, { todos: [] }).todos).toEqual([]);
  });

  it("nudges once after the threshold of tool calls without a todo update", () => {
    const t = new TodoList();
    t.write([{ id: "1", content: "x", status: "in_progress" }], false);
    const hits: number[] = [];
    for (let i = 1; i <= TODO_NUDGE_THRESHOLD * 2; i++) if (t.countToolCall()) hits.push(i);
    expect(hits).toEqual([TODO_NUDGE_THRESHOLD]);
    t.list();
    for (let i = 1; i < TODO_NUDGE_THRESHOLD; i++) expect(t.countToolCall()).toBe(false);
    expect(t.countToolCall()).toBe(true);
  });

  it("does not nudge without open items", () => {
    const t = new TodoList();
    expect(t.hasOpenItems()).toBe(false);
    for (let i = 0; i < 30; i++) expect(t.countToolCall()).toBe(false);
  });

  it("renders the preserved block for the compressor", () => {
    const t = new TodoList();
    expect(preservedTodoBlock(t.snapshot())).toBe("");
    t.write(
      [
        { id: "1", content: "setup", status: "completed" },
        { id: "2", content: "search endpoint", status: "in_progress" },
        { id: "3", content: "errors" },
      ],
      false,
    );
    const block = preservedTodoBlock(t.snapshot());
    expect(block).toContain("preserved across context compression");
    expect(block).toContain("- [x] 1. setup");
    expect(block).toContain("- [>] 2. search endpoint");
    expect(block).toContain("- [ ] 3. errors");
  });
});
