import type { ToolSchema } from "../../registry.js";

/**
 * Tools a script may call: those whose results are worth filtering in code. Media, vision, other
 * LLM calls, background processes, user interaction, messaging, schedules and execute_code itself
 * stay out; browser_close too (a script must not end the browser the agent still needs).
 * Only the ones also enabled in the session are exposed.
 */
export const SANDBOX_TOOLS: readonly string[] = [
  "web_search",
  "web_extract",
  "read_file",
  "write_file",
  "search_files",
  "patch",
  "terminal",
  "browser_navigate",
  "browser_snapshot",
  "browser_click",
  "browser_type",
  "browser_scroll",
  "browser_back",
  "browser_press",
  // The tool search bridge, when the session defers tools: scripts reach them through it.
  "tool_search",
  "tool_describe",
  "tool_call",
];

/** terminal runs in the foreground only: background, pty and watcher options are dropped. */
const TERMINAL_ARGS: readonly string[] = ["command", "timeout", "workdir"];

/** The allow-listed tools among `available`, in allow-list order. */
export function sandboxTools(available: Iterable<string>): string[] {
  const have = new Set(available);
  return SANDBOX_TOOLS.filter((t) => have.has(t));
}

export interface StubParam {
  name: string;
  required: boolean;
}

export interface StubSpec {
  name: string;
  /** Required parameters first, in schema order. */
  params: StubParam[];
}

/** A tool's parameters as a stub exposes them. */
export function stubSpec(name: string, schema: ToolSchema): StubSpec {
  const props = (schema.parameters.properties ?? {}) as Record<string, unknown>;
  const required = new Set(
    Array.isArray(schema.parameters.required) ? (schema.parameters.required as string[]) : [],
  );
  let names = Object.keys(props);
  if (name === "terminal") names = names.filter((n) => TERMINAL_ARGS.includes(n));
  const params = names.map((n) => ({ name: n, required: required.has(n) }));
  return { name, params: [...params.filter((p) => p.required), ...params.filter((p) => !p.required)] };
}

/** Arguments as dispatched for a script: terminal keeps only its foreground options. */
export function sandboxArgs(name: string, args: Record<string, unknown>): Record<string, unknown> {
  if (name !== "terminal") return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => TERMINAL_ARGS.includes(k)));
}

/** Why a script may not call `name`, for the error it sees. */
export function refusal(name: string, exposed: readonly string[], registered: boolean): string {
  const list = exposed.join(", ") || "none";
  if (!registered) return `Unknown tool: ${name}. Available in this script: ${list}.`;
  if (SANDBOX_TOOLS.includes(name))
    return `Tool '${name}' is not enabled in this session. Available in this script: ${list}.`;
  return `Tool '${name}' cannot be called from execute_code; call it as a normal tool instead.`;
}
