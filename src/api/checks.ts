/**
 * Small body checks that name the field at fault (`messages[2].role must be one of ...`), shared by
 * the chat completions and Responses parsers.
 */

import { isRecord } from "../core/is-record.js";
import type { ChatMessage, ToolCall } from "../llm/types.js";
import { invalidField } from "./http.js";

export function optionalString(body: Record<string, unknown>, key: string, path = key): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalidField(path, `must be a string, not ${typeName(v)}`);
  return v;
}

export function optionalBoolean(body: Record<string, unknown>, key: string, path = key): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw invalidField(path, `must be true or false, not ${typeName(v)}`);
  return v;
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalidField(
    path,
    `must be one of ${allowed.join(", ")}${value === undefined ? " (it is missing)" : `, not ${JSON.stringify(value)}`}`,
  );
}

export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/**
 * Tool results must answer a call of the assistant message before them: a stray result is a
 * malformed conversation that every provider refuses, better named here than there.
 */
export function checkToolResults(messages: readonly ChatMessage[], pathOf: (index: number) => string): void {
  const open = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === "assistant") {
      open.clear();
      for (const c of m.tool_calls ?? []) open.add(c.id);
    } else if (m.role === "tool") {
      if (!open.has(m.tool_call_id))
        throw invalidField(
          pathOf(i),
          `(${JSON.stringify(m.tool_call_id)}) does not answer a tool call of the assistant message before it`,
        );
      open.delete(m.tool_call_id);
    } else open.clear();
  });
}

/** A tool call as chat completions carry it. */
export function parseToolCall(v: unknown, path: string): ToolCall {
  if (!isRecord(v)) throw invalidField(path, `must be an object, not ${typeName(v)}`);
  const id = v.id;
  if (typeof id !== "string" || !id) throw invalidField(`${path}.id`, "must be a non-empty string");
  const fn = v.function;
  if (!isRecord(fn)) throw invalidField(`${path}.function`, "must be an object with name and arguments");
  if (typeof fn.name !== "string" || !fn.name)
    throw invalidField(`${path}.function.name`, "must be a non-empty string");
  const args = fn.arguments ?? "{}";
  if (typeof args !== "string") throw invalidField(`${path}.function.arguments`, "must be a JSON string");
  return { id, type: "function", function: { name: fn.name, arguments: args } };
}
