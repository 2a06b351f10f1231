import type { HermesToolRegistry, MemoryOperation, MemoryTarget, ToolContext } from "../context.js";
import { toolError, toolResult } from "./util.js";

export const MEMORY_SCHEMA = {
  description:
    "Durable memory shown in every future session. target user: the user's preferences, corrections, " +
    "habits; memory: your notes (environment, conventions, lessons). add(content); replace(old_text, " +
    "content), remove(old_text): old_text unique to one entry. operations: one target's batch, all or " +
    "none. Keep entries short; consolidate when full.",
  parameters: {
    type: "object",
    properties: {
      target: { type: "string", enum: ["memory", "user"] },
      action: { type: "string", enum: ["add", "replace", "remove"] },
      content: { type: "string" },
      old_text: { type: "string" },
      operations: {
        type: "array",
        items: {
          type: "object",
          properties: {
            action: { type: "string", enum: ["add", "replace", "remove"] },
            content: { type: "string" },
            old_text: { type: "string" },
          },
          required: ["action"],
        },
      },
    },
    required: ["target"],
  },
};

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function toOperation(raw: unknown): MemoryOperation | string {
  if (!raw || typeof raw !== "object") return "each operation must be an object";
  const o = raw as Record<string, unknown>;
  const action = str(o.action);
  if (action !== "add" && action !== "replace" && action !== "remove") {
    return `unknown action '${String(o.action)}' (use add, replace or remove)`;
  }
  return { action, content: str(o.content), old_text: str(o.old_text) };
}

export async function memoryTool(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const store = ctx.memory;
  if (!store) return toolError("Memory is not available in this session.");
  const target = args.target;
  if (target !== "memory" && target !== "user") return toolError("target must be 'memory' or 'user'.");
  const t = target as MemoryTarget;
  if (!store.enabled(t)) return toolError(`The ${t} store is disabled in config.`);
  let ops: MemoryOperation[];
  if (Array.isArray(args.operations) && args.operations.length > 0) {
    ops = [];
    for (const raw of args.operations) {
      const op = toOperation(raw);
      if (typeof op === "string") return toolError(`${op}. Nothing was changed.`);
      ops.push(op);
    }
  } else if (args.action !== undefined) {
    const op = toOperation(args);
    if (typeof op === "string") return toolError(op);
    ops = [op];
  } else {
    const entries = store.read(t);
    return toolResult({ target: t, entries, used: entries.join("\n§\n").length, limit: store.limit(t) });
  }
  const r = await store.apply(t, ops);
  if (!r.ok) {
    return toolError(r.error ?? "Memory update failed.", {
      ...(r.entries ? { current_entries: r.entries } : {}),
      ...(r.usage ? { usage: `${r.usage.used}/${r.usage.limit}` } : {}),
    });
  }
  return toolResult({
    success: true,
    target: t,
    entries: r.entries,
    usage: r.usage ? `${r.usage.used}/${r.usage.limit}` : undefined,
    note: "Saved. It will appear in the system prompt from the next session.",
  });
}

export function registerMemoryTool(registry: HermesToolRegistry): void {
  registry.register({
    name: "memory",
    toolset: "memory",
    schema: MEMORY_SCHEMA,
    handler: memoryTool,
    emoji: "🧠",
  });
}
