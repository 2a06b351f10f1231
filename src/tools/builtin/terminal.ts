import { homePaths } from "../../core/home.js";
import type { HermesToolRegistry, ToolContext } from "../context.js";
import type { RunResult } from "../environments/types.js";
import { cleanTerminalOutput, spillToFile, truncateOutput } from "../output.js";
import { userProcesses } from "../process/user-processes.js";
import { compilePatterns } from "../process/watch.js";
import { type ToolOutput, textBlock } from "../result.js";
import { skillEnv } from "../skills-service.js";
import { checkCommandApproval } from "./approval-gate.js";
import { argBool, argInt, toolError, toolResult } from "./util.js";

const MAX_TIMEOUT_S = 3600;
/** Conventional statuses for killed commands (GNU timeout, Ctrl-C), so exit_code is always a number. */
const TIMEOUT_EXIT = 124;
const INTERRUPT_EXIT = 130;

export const TERMINAL_SCHEMA = {
  description:
    "Run a bash command; cwd and exports persist. No stdin: use non-interactive flags. Servers, long " +
    "jobs: background=true, then process (notify_on_complete; watch_patterns: regexes). pty: TTY " +
    "programs. Files: prefer the file tools.",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string" },
      background: { type: "boolean" },
      nohup: { type: "boolean", description: "Background: keep running after Hermes exits." },
      timeout: { type: "integer", description: "Seconds (foreground).", maximum: MAX_TIMEOUT_S },
      workdir: { type: "string", description: "For this call only." },
      pty: { type: "boolean" },
      notify_on_complete: { type: "boolean" },
      watch_patterns: { type: "array", items: { type: "string" } },
    },
    required: ["command"],
  },
};

interface TerminalRequest {
  command: string;
  background: boolean;
  /** Survives this Hermes process (like a command started with `nohup`). */
  nohup: boolean;
  pty: boolean;
  timeoutS: number;
  /** Resolved and checked to be a directory. */
  workdir: string | undefined;
  notifyOnComplete: boolean;
  watchPatterns: string[];
}

/** Validates the arguments; a string is the error to return. */
async function parseRequest(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<TerminalRequest | string> {
  const command = typeof args.command === "string" ? args.command : "";
  if (!command.trim()) return "command is required: pass the shell command to run.";
  let workdir: string | undefined;
  const rawWorkdir = args.workdir;
  if (rawWorkdir !== undefined && rawWorkdir !== null && rawWorkdir !== "") {
    if (typeof rawWorkdir !== "string") return "workdir must be a directory path string.";
    workdir = ctx.env.resolvePath(rawWorkdir);
    const st = await ctx.env.stat(workdir);
    if (!st) return `workdir does not exist: ${workdir}. Create it first or omit workdir.`;
    if (!st.isDirectory) return `workdir is not a directory: ${workdir}`;
  }
  const raw = args.watch_patterns;
  const watchPatterns =
    typeof raw === "string" && raw !== ""
      ? [raw]
      : Array.isArray(raw)
        ? raw.filter((p): p is string => typeof p === "string" && p !== "")
        : [];
  return {
    command,
    background: argBool(args, "background"),
    nohup: argBool(args, "nohup"),
    pty: argBool(args, "pty"),
    timeoutS: argInt(args, "timeout", ctx.config.terminal.timeout, 1, MAX_TIMEOUT_S),
    workdir,
    notifyOnComplete: argBool(args, "notify_on_complete"),
    watchPatterns,
  };
}

/** A finished foreground command: the model's JSON text and the exit status it reports. */
interface CommandRun {
  text: string;
  exitCode: number;
}

export async function handleTerminal(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
  let req: TerminalRequest | string;
  try {
    req = await parseRequest(args, ctx);
  } catch (err) {
    return toolError((err as Error).message);
  }
  if (typeof req === "string") return toolError(req);
  // Judged where it runs: relative paths and `cd ..` are read from the call's own workdir.
  const gate = await checkCommandApproval(req.command, ctx, req.workdir ? { cwd: req.workdir } : {});
  if (!gate.allowed) return gate.result;
  try {
    if (req.background) return gate.annotate(await startBackground(req, ctx));
    const run = await runForeground(req, ctx);
    if (typeof run === "string") return gate.annotate(run);
    // The exit code rides as a detail too, so failure is read from data rather than from the text.
    return { content: [textBlock(gate.annotate(run.text))], details: { exitCode: run.exitCode } };
  } catch (err) {
    // Unreachable hosts, a missing PTY module, a container that will not start: all for the model to read.
    return toolError((err as Error).message);
  }
}

async function startBackground(req: TerminalRequest, ctx: ToolContext): Promise<string> {
  if (!ctx.env.backgroundSpec) {
    return toolError(
      `background=true is available on the local backend only; this one is ${ctx.env.backend}. Start ` +
        "it detached instead: nohup CMD > /tmp/cmd.log 2>&1 & echo $! ... then read the log with read_file.",
    );
  }
  const patterns = compilePatterns(req.watchPatterns);
  if ("error" in patterns) return toolError(patterns.error);
  const spec = await ctx.env.backgroundSpec(req.workdir);
  const fromSkills = skillEnv(ctx.skills);
  if (fromSkills) spec.env = { ...spec.env, ...fromSkills };
  // Owned by the session's user: other users' process tools neither see nor reach it.
  const view = await userProcesses(ctx.home, ctx.scope?.userKey).start({
    command: req.command,
    spec,
    keep: req.nohup,
    pty: req.pty,
    notifyOnComplete: req.notifyOnComplete,
    watchPatterns: patterns,
    notices: ctx.notices,
  });
  const out: Record<string, unknown> = {
    session_id: view.id,
    pid: view.pid,
    status: view.status,
    log_path: view.log_path,
  };
  if ((req.notifyOnComplete || patterns.length > 0) && !ctx.notices) {
    out.note = "Notifications are not delivered here; check on it with the process tool.";
  }
  return toolResult(out);
}

async function runForeground(req: TerminalRequest, ctx: ToolContext): Promise<string | CommandRun> {
  if (req.notifyOnComplete || req.watchPatterns.length > 0 || req.nohup) {
    return toolError("nohup, notify_on_complete and watch_patterns need background=true.");
  }
  const res = await ctx.env.run(req.command, {
    timeoutMs: req.timeoutS * 1000,
    signal: ctx.signal,
    workdir: req.workdir,
    pty: req.pty,
    spillDir: homePaths(ctx.home).toolOutput,
    // Variables that loaded skills declared (their credentials are otherwise kept from commands).
    env: skillEnv(ctx.skills),
  });
  return formatResult(res, req.timeoutS, ctx);
}

async function formatResult(res: RunResult, timeoutS: number, ctx: ToolContext): Promise<CommandRun> {
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
        "Use a larger timeout (max 3600), background=true, or split the work.",
    );
  }
  if (res.interrupted) {
    out.interrupted = true;
    notes.push("Interrupted by the user; the command was killed.");
  }
  if (cut.truncated || res.fullOutputPath) {
    out.truncated = true;
    const path = await saveFullOutput(res, cleaned, ctx);
    if (path) {
      out.full_output_path = path;
      notes.push(`Output truncated; full output saved to ${path} (use read_file with offset to page).`);
    } else notes.push("Output truncated (the full output could not be saved).");
  }
  if (notes.length > 0) out.note = notes.join(" ");
  return { text: toolResult(out), exitCode };
}

/**
 * Where the whole output can be read with read_file: the file the environment streamed it to, or
 * the cleaned text written now; copied into the environment on remote backends. Never throws.
 */
async function saveFullOutput(
  res: RunResult,
  cleaned: string,
  ctx: ToolContext,
): Promise<string | undefined> {
  let local: string;
  try {
    local = res.fullOutputPath ?? (await spillToFile(ctx.home, cleaned, "terminal"));
  } catch {
    return undefined;
  }
  if (!ctx.env.storeOutput) return local;
  try {
    return await ctx.env.storeOutput(local);
  } catch {
    return undefined;
  }
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
