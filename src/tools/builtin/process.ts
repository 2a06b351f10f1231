import type { HermesToolRegistry, ToolContext } from "../context.js";
import { truncateOutput } from "../output.js";
import { readLogPage } from "../process/log.js";
import type { ProcessView } from "../process/registry.js";
import { userProcesses } from "../process/user-processes.js";
import { checkCommandApproval } from "./approval-gate.js";
import { argInt, argString, toolError, toolResult } from "./util.js";

const ACTIONS = ["list", "poll", "log", "wait", "kill", "write", "submit", "close"] as const;
type Action = (typeof ACTIONS)[number];

const DEFAULT_LOG_LINES = 200;
const MAX_LOG_LINES = 2000;
const POLL_TAIL_LINES = 20;
const MAX_WAIT_S = 3600;
const LIST_MAX = 30;

export const PROCESS_SCHEMA = {
  description:
    "Background terminal processes by session_id: list, poll (status, new output), log (offset/limit; " +
    "default last 200 lines), wait (until exit or timeout s), kill, write (data to stdin), submit " +
    "(data + Enter), close (stdin).",
  parameters: {
    type: "object",
    properties: {
      action: { type: "string", enum: [...ACTIONS] },
      session_id: { type: "string" },
      data: { type: "string" },
      timeout: { type: "integer" },
      offset: { type: "integer" },
      limit: { type: "integer" },
    },
    required: ["action"],
  },
};

const summary = (v: ProcessView): Record<string, unknown> => ({
  session_id: v.id,
  pid: v.pid,
  status: v.status,
  exit_code: v.exit_code,
  command: v.command.length > 200 ? `${v.command.slice(0, 200)}...` : v.command,
  runtime_s: v.runtime_s,
  ...(v.owned ? {} : { started_by: `another Hermes process (pid ${v.owner_pid})` }),
  ...(v.detached ? { detached: true } : {}),
});

/** The last lines of the log, cleaned and within the tool-output limits. */
async function tail(v: ProcessView, lines: number, ctx: ToolContext): Promise<string> {
  const page = await readLogPage(v.log_path, {
    limit: lines,
    maxLineLength: ctx.config.tool_output.max_line_length,
  });
  return page.lines.join("\n");
}

async function showLog(v: ProcessView, args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const limit = argInt(args, "limit", DEFAULT_LOG_LINES, 1, MAX_LOG_LINES);
  const rawOffset = argInt(args, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
  const limits = ctx.config.tool_output;
  const page = await readLogPage(v.log_path, {
    offset: rawOffset > 0 ? rawOffset : undefined,
    limit,
    maxLineLength: limits.max_line_length,
  });
  const cut = truncateOutput(page.lines.join("\n"), {
    maxBytes: limits.max_bytes,
    maxLines: limits.max_lines,
    maxLineLength: limits.max_line_length,
  });
  const out: Record<string, unknown> = {
    session_id: v.id,
    status: v.status,
    output: cut.text,
    total_lines: page.totalLines,
    offset: page.offset,
    lines_returned: page.lines.length,
  };
  const next = page.offset + page.lines.length;
  if (next <= page.totalLines) out.next_offset = next;
  if (cut.truncated) out.note = `Output cut to the tool-output limits; the full log is ${v.log_path}.`;
  return toolResult(out);
}

export async function handleProcess(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const action = argString(args, "action") as Action | undefined;
  if (!action || !ACTIONS.includes(action)) {
    return toolError(`action must be one of: ${ACTIONS.join(", ")}.`);
  }
  // A chat user sees and acts on their own processes only (ctx.scope); the profile's owner, on the unowned ones.
  const registry = userProcesses(ctx.home, ctx.scope?.userKey);
  if (action === "list") {
    const all = registry.list();
    const shown = all.slice(0, LIST_MAX).map(summary);
    return toolResult({
      processes: shown,
      ...(all.length > LIST_MAX ? { more: all.length - LIST_MAX } : {}),
    });
  }
  const id = argString(args, "session_id");
  if (!id) return toolError(`session_id is required for ${action}; use action "list" to see the ids.`);
  const view = registry.get(id);
  if (!view) return toolError(`No background process ${id}; use action "list" to see the ids.`);
  try {
    switch (action) {
      case "poll":
        return toolResult({ ...summary(view), output_tail: await tail(view, POLL_TAIL_LINES, ctx) });
      case "log":
        return await showLog(view, args, ctx);
      case "wait": {
        const seconds = argInt(args, "timeout", ctx.config.terminal.timeout, 1, MAX_WAIT_S);
        const { view: after, timedOut } = await registry.wait(id, seconds * 1000, ctx.signal);
        const out: Record<string, unknown> = {
          ...summary(after),
          output_tail: await tail(after, POLL_TAIL_LINES, ctx),
        };
        if (timedOut) {
          out.timed_out = true;
          out.note = ctx.signal.aborted
            ? "Interrupted by the user; the process is still running."
            : `Still running after ${seconds}s.`;
        }
        return toolResult(out);
      }
      case "kill": {
        const after = await registry.kill(id);
        const gone = after.status !== "running";
        return toolResult({ ...summary(after), ...(gone ? {} : { note: "The process did not die." }) });
      }
      case "write":
      case "submit": {
        const data = typeof args.data === "string" ? args.data : "";
        if (action === "write" && data === "") return toolError("data is required for write.");
        // Text typed into a background shell is a command like any other: same approval gate.
        const gate = await checkCommandApproval(data, ctx);
        if (!gate.allowed) return gate.result;
        const text = action === "submit" ? `${data}${registry.isPty(id) ? "\r" : "\n"}` : data;
        registry.write(id, text);
        return toolResult({ session_id: id, status: view.status, bytes_written: Buffer.byteLength(text) });
      }
      case "close":
        registry.closeStdin(id);
        return toolResult({ session_id: id, status: view.status, stdin: "closed" });
    }
  } catch (err) {
    return toolError((err as Error).message);
  }
}

export function registerProcessTool(registry: HermesToolRegistry): void {
  registry.register({
    name: "process",
    toolset: "terminal",
    schema: PROCESS_SCHEMA,
    handler: handleProcess,
    emoji: "⚙️",
    parallelSafe: false,
  });
}
