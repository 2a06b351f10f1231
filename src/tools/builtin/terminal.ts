import type { HermesToolRegistry, ToolContext } from "../context.js";
import { cleanTerminalOutput, spillToFile, truncateOutput } from "../output.js";
import { argBool, argInt, toolError, toolResult } from "./util.js";

const MAX_TIMEOUT_S = 3600;
/** Conventional statuses for killed commands (GNU timeout, Ctrl-C), so exit_code is always a number. */
const TIMEOUT_EXIT = 124;
const INTERRUPT_EXIT = 130;

export const TERMINAL_SCHEMA = {
  description:
    "Run a shell command (bash) and return its output and exit code. The working directory and " +
    "exported variables persist between calls. No stdin or TTY: use non-interactive flags. Prefer " +
    "read_file, write_file, patch and search_files over cat/sed/grep for files. Default timeout: " +
    "terminal.timeout (180 s).",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "Command or multi-line script to run." },
      background: { type: "boolean", description: "Run in the background (not available yet)." },
      timeout: {
        type: "integer",
        description: "Seconds before the command is killed (max 3600).",
        minimum: 1,
        maximum: MAX_TIMEOUT_S,
      },
      workdir: { type: "string", description: "Run in this directory for this call only." },
      pty: { type: "boolean", description: "Run in a pseudo-terminal (not available yet)." },
    },
    required: ["command"],
  },
};

export async function handleTerminal(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const command = typeof args.command === "string" ? args.command : "";
  if (!command.trim()) return toolError("command is required: pass the shell command to run.");
  if (argBool(args, "background")) {
    return toolError(
      "background=true is not available in this build. Run the command in the foreground (raise " +
        "timeout, up to 3600 s, for long jobs), or detach it yourself: nohup CMD > /tmp/cmd.log 2>&1 & " +
        "then read the log later.",
    );
  }
  if (argBool(args, "pty")) {
    return toolError(
      "pty=true is not available in this build. Run the command without pty, using non-interactive " +
        "flags (e.g. -y, --yes, --no-pager, --batch).",
    );
  }
  const timeoutS = argInt(args, "timeout", ctx.config.terminal.timeout, 1, MAX_TIMEOUT_S);

  let workdir: string | undefined;
  const rawWorkdir = args.workdir;
  if (rawWorkdir !== undefined && rawWorkdir !== null && rawWorkdir !== "") {
    if (typeof rawWorkdir !== "string") return toolError("workdir must be a directory path string.");
    workdir = ctx.env.resolvePath(rawWorkdir);
    const st = await ctx.env.stat(workdir);
    if (!st) return toolError(`workdir does not exist: ${workdir}. Create it first or omit workdir.`);
    if (!st.isDirectory) return toolError(`workdir is not a directory: ${workdir}`);
  }

  const res = await ctx.env.run(command, { timeoutMs: timeoutS * 1000, signal: ctx.signal, workdir });
  const cleaned = cleanTerminalOutput(res.output);
  const limits = ctx.config.tool_output;
  const cut = truncateOutput(cleaned, {
    maxBytes: limits.max_bytes,
    maxLines: limits.max_lines,
    maxLineLength: limits.max_line_length,
  });

  const exitCode = res.exitCode ?? (res.timedOut ? TIMEOUT_EXIT : INTERRUPT_EXIT);
  const out: Record<string, unknown> = { output: cut.text, exit_code: exitCode, cwd: res.cwd };
  const notes: string[] = [];
  if (res.timedOut) {
    out.timed_out = true;
    notes.push(
      `Timed out after ${timeoutS}s; the command and its child processes were killed, output is partial. ` +
        "Use a larger timeout (max 3600) or split the work.",
    );
  }
  if (res.interrupted) {
    out.interrupted = true;
    notes.push("Interrupted by the user; the command was killed.");
  }
  if (cut.truncated) {
    out.truncated = true;
    try {
      const path = await spillToFile(ctx.home, cleaned, "terminal");
      out.full_output_path = path;
      notes.push(`Output truncated; full output saved to ${path} (use read_file with offset to page).`);
    } catch {
      notes.push("Output truncated (the full output could not be saved).");
    }
  }
  if (notes.length > 0) out.note = notes.join(" ");
  return toolResult(out);
}

export function registerTerminalTools(registry: HermesToolRegistry): void {
  registry.register({
    name: "terminal",
    toolset: "terminal",
    schema: TERMINAL_SCHEMA,
    handler: handleTerminal,
    emoji: "💻",
    parallelSafe: false,
  });
}
