/**
 * Phase 1 (seed 004 §7.2): cheap pruning before any model call. Outside the protected tail, large
 * tool results become one-line summaries per tool, repeated identical results keep only the newest
 * copy, oversized tool-call arguments shrink leaf by leaf (the JSON stays valid), old inline images go.
 */
import type { AssistantMessage, ChatMessage, ContentPart, ToolCall, ToolMessage } from "../../llm/types.js";

/** Tool results at or under this many characters are left alone: a summary would not save much. */
export const PRUNE_MIN_CHARS = 400;
/** String leaves of tool-call arguments longer than this are cut. */
export const ARG_LEAF_MAX_CHARS = 300;
export const IMAGE_REMOVED = "[image removed to save context]";

export interface PruneStats {
  prunedResults: number;
  dedupedResults: number;
  shrunkArgs: number;
  strippedImages: number;
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function str(v: unknown, max = 80): string {
  const s = typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n += 1;
  return n;
}

/** A one-line description of a tool result, shaped for the tool that produced it. */
export function summariseToolResult(name: string, args: Record<string, unknown>, content: string): string {
  const chars = content.length.toLocaleString("en-US");
  switch (name) {
    case "terminal": {
      const exit = /"exit_code"\s*:\s*(-?\d+)/.exec(content)?.[1];
      const status = exit === undefined ? "" : ` -> exit ${exit},`;
      return `[terminal] ran \`${str(args.command)}\`${status} ${lineCount(content)} lines output (pruned)`;
    }
    case "read_file":
      return `[read_file] read ${str(args.path)}${args.offset ? ` from line ${str(args.offset)}` : ""} (${chars} chars, pruned)`;
    case "search_files": {
      const matches = /"total_count"\s*:\s*(\d+)/.exec(content)?.[1];
      return `[search_files] search for '${str(args.pattern)}'${args.path ? ` in ${str(args.path)}` : ""}${matches ? ` -> ${matches} matches` : ""} (pruned)`;
    }
    case "write_file":
      return `[write_file] wrote ${str(args.path)} (${chars} chars result, pruned)`;
    case "patch":
      return `[patch] edited ${str(args.path)} (${chars} chars result, pruned)`;
    case "delegate_task":
      return `[delegate_task] '${str(args.goal)}' (${chars} chars result, pruned)`;
    case "web_search":
      return `[web_search] '${str(args.query)}' (${chars} chars result, pruned)`;
    case "web_extract":
      return `[web_extract] ${str(args.urls)} (${chars} chars result, pruned)`;
    default: {
      const first = Object.entries(args)[0];
      const hint = first ? ` ${first[0]}=${str(first[1], 60)}` : "";
      return `[${name}]${hint} (${chars} chars result, pruned)`;
    }
  }
}

/** Cuts every string leaf longer than `max`; the result always serialises to valid JSON. */
export function shrinkJsonLeaves(value: unknown, max: number): unknown {
  if (typeof value === "string") {
    return value.length > max ? `${value.slice(0, max)}…[${value.length - max} chars truncated]` : value;
  }
  if (Array.isArray(value)) return value.map((v) => shrinkJsonLeaves(v, max));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = shrinkJsonLeaves(v, max);
    return out;
  }
  return value;
}

/** Shrunk argument JSON, or undefined when nothing needed cutting. Unparseable input becomes "{}". */
export function shrinkToolArgs(raw: string, max = ARG_LEAF_MAX_CHARS): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // A fragment that never parsed cannot be repaired by slicing; an empty object is valid JSON.
    return "{}";
  }
  if (raw.length <= max) return undefined;
  const out = JSON.stringify(shrinkJsonLeaves(parsed, max));
  return out.length < raw.length ? out : undefined;
}

/**
 * Prunes `messages[from, to)` and returns a new array (messages outside the range are shared,
 * pruned ones are copies). `to` is where the protected tail starts.
 */
export function pruneMessages(
  messages: readonly ChatMessage[],
  from: number,
  to: number,
): { messages: ChatMessage[]; stats: PruneStats } {
  const stats: PruneStats = { prunedResults: 0, dedupedResults: 0, shrunkArgs: 0, strippedImages: 0 };
  const out = messages.slice();
  const calls = new Map<string, ToolCall>();
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role === "assistant") for (const tc of m.tool_calls ?? []) calls.set(tc.id, tc);
  }
  // Newest copy of each large result wins: walk backward and remember what was already seen
  // (the tail counts as "seen", so an old duplicate of a tail result goes too).
  const seen = new Set<string>();
  for (let i = out.length - 1; i >= to; i--) {
    const m = out[i]!;
    if (m.role === "tool" && m.content.length > PRUNE_MIN_CHARS) seen.add(m.content);
  }
  for (let i = Math.min(to, out.length) - 1; i >= from; i--) {
    const m = out[i]!;
    if (m.role === "tool") {
      if (m.content.length <= PRUNE_MIN_CHARS) continue;
      const call = calls.get(m.tool_call_id);
      const name = m.name ?? call?.function.name ?? "tool";
      if (seen.has(m.content)) {
        out[i] = {
          ...m,
          content: `[${name}] same output as a later call (duplicate removed)`,
        } as ToolMessage;
        stats.dedupedResults += 1;
        continue;
      }
      seen.add(m.content);
      out[i] = {
        ...m,
        content: summariseToolResult(name, parseArgs(call?.function.arguments ?? "{}"), m.content),
      } as ToolMessage;
      stats.prunedResults += 1;
    } else if (m.role === "assistant" && m.tool_calls?.length) {
      let changed = false;
      const tool_calls = m.tool_calls.map((tc) => {
        const shrunk = shrinkToolArgs(tc.function.arguments);
        if (shrunk === undefined) return tc;
        changed = true;
        stats.shrunkArgs += 1;
        return { ...tc, function: { ...tc.function, arguments: shrunk } };
      });
      if (changed) out[i] = { ...m, tool_calls } as AssistantMessage;
    } else if (m.role === "user" && Array.isArray(m.content)) {
      if (!m.content.some((p) => p.type === "image_url" && p.image_url.url.startsWith("data:"))) continue;
      const content: ContentPart[] = m.content.map((p) => {
        if (p.type !== "image_url" || !p.image_url.url.startsWith("data:")) return p;
        stats.strippedImages += 1;
        return { type: "text", text: IMAGE_REMOVED };
      });
      out[i] = { ...m, content };
    }
  }
  return { messages: out, stats };
}
