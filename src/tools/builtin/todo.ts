import type { HermesToolRegistry, TodoItem, ToolContext } from "../context.js";
import { argBool, toolError, toolResult } from "./util.js";

export const TODO_SCHEMA = {
  description: [
    "Your task list for this session: plan and track multi-step work. Call with no arguments to read it.",
    "Use it for tasks of 3+ steps, several requests at once, or when you need a plan; skip it for simple requests.",
    "- merge=false (default) replaces the whole list with `todos`; merge=true updates items by id and appends new ones.",
    "- Mark the first item in_progress right away and work on it; keep only ONE item in_progress.",
    "- Mark items completed as soon as they are done; if one fails, mark it cancelled and add a revised item.",
    "- Do not add test or verify items unless the user asks. Update the list quietly alongside your work.",
    "Every call returns the full current list.",
  ].join("\n"),
  parameters: {
    type: "object",
    properties: {
      todos: {
        type: "array",
        description: "Items to write. Order is priority.",
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
      merge: { type: "boolean", description: "Update by id instead of replacing the list." },
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
