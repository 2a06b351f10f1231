import type { HermesToolRegistry, TodoItem, ToolContext } from "../context.js";
import { argBool, toolError, toolResult } from "./util.js";

export const TODO_SCHEMA = {
  description:
    "Task list for work of 3+ steps. No arguments: read it. todos replaces the " +
    "list (merge=true: update by id, append new). Keep ONE item in_progress; mark it completed when " +
    "done, or cancelled plus a revised item if it failed. No test/verify items unless asked.",
  parameters: {
    type: "object",
    properties: {
      todos: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            content: { type: "string" },
            status: { type: "string", enum: ["pending", "in_progress", "completed", "cancelled"] },
          },
          required: ["id"],
        },
      },
      merge: { type: "boolean" },
    },
  },
};

const view = (items: TodoItem[]): Record<string, unknown> => ({
  todos: items,
  summary: {
    total: items.length,
    pending: items.filter((i) => i.status === "pending").length,
    in_progress: items.filter((i) => i.status === "in_progress").length,
    completed: items.filter((i) => i.status === "completed").length,
    cancelled: items.filter((i) => i.status === "cancelled").length,
  },
});

export function todoTool(args: Record<string, unknown>, ctx: ToolContext): string {
  const todos = ctx.todos;
  if (!todos) return toolError("The task list is not available in this session.");
  if (args.todos === undefined || args.todos === null) return toolResult(view(todos.list()));
  if (!Array.isArray(args.todos)) return toolError("todos must be an array of {id, content, status}.");
  try {
    return toolResult(view(todos.write(args.todos as Partial<TodoItem>[], argBool(args, "merge"))));
  } catch (err) {
    return toolError(`${(err as Error).message}. The list was not changed.`, { todos: todos.list() });
  }
}

export function registerTodoTool(registry: HermesToolRegistry): void {
  registry.register({ name: "todo", toolset: "todo", schema: TODO_SCHEMA, handler: todoTool, emoji: "📋" });
}
