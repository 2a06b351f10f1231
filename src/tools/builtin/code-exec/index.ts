import type { HermesConfig } from "../../../core/config.js";
import type { HermesToolRegistry, ToolContext } from "../../context.js";
import type { ToolSchema } from "../../registry.js";
import { argString, toolError } from "../util.js";
import { findPython, scriptEnv } from "./env.js";
import { codeExecSettings, MAX_STDOUT_BYTES } from "./limits.js";
import { runScript, type ScriptLanguage } from "./run.js";
import { refusal, sandboxArgs, sandboxTools, signature, stubSpec } from "./sandbox-tools.js";

export const WINDOWS_REFUSAL =
  "execute_code is not available on Windows; make the tool calls one by one instead.";

/** The tool's schema for a session whose script-callable tools are `tools` (with their signatures). */
export function executeCodeSchema(signatures: readonly string[], config?: HermesConfig): ToolSchema {
  const { timeoutSeconds, maxToolCalls } = codeExecSettings(config);
  const list =
    signatures.length > 0 ? signatures.join(", ") : "none in this session (plain computation only)";
  return {
    description:
      "Run a Python 3 script (or JavaScript with language=javascript) that calls tools from code; only what it " +
      "prints comes back to you. Use it for 3+ tool calls with logic in between: loops over files or search " +
      "results, filtering big outputs down, branching on results. Use normal tool calls for a single step or " +
      "when you need to read a full result yourself.\n" +
      "Python: `from hermes_tools import read_file, ...`; JavaScript: `import { read_file } from " +
      '"hermes_tools"` (async: await each call, pass one object of arguments). Functions here: ' +
      `${list}. Each returns the tool's result parsed from JSON (a dict with "error" when it failed); ` +
      "terminal runs in the foreground only. Standard library only; each run starts fresh. " +
      `Limits: ${timeoutSeconds} s, ${maxToolCalls} tool calls, ${MAX_STDOUT_BYTES / 1000} KB of printed ` +
      "output: print a compact result.",
    parameters: {
      type: "object",
      properties: {
        code: { type: "string", description: "The script. Print the result to stdout." },
        language: { type: "string", enum: ["python", "javascript"], description: "Default python." },
        timeout: {
          type: "integer",
          minimum: 1,
          description: `Seconds before the script is killed (default and maximum ${timeoutSeconds}).`,
        },
      },
      required: ["code"],
    },
  };
}

function timeoutArg(args: Record<string, unknown>, max: number): number {
  const raw = args.timeout;
  const n = typeof raw === "number" ? raw : typeof raw === "string" ? Number(raw) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? Math.min(n, max) : max;
}

export async function executeCodeTool(
  registry: HermesToolRegistry,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  if (process.platform === "win32") return toolError(WINDOWS_REFUSAL);
  const code = argString(args, "code");
  if (!code?.trim()) return toolError("code is required: the script to run.");
  const language = (args.language ?? "python") as ScriptLanguage;
  if (language !== "python" && language !== "javascript")
    return toolError('language must be "python" or "javascript".');
  const service = ctx.toolCalls;
  if (!service) return toolError("execute_code cannot call tools in this session; make the calls directly.");
  const settings = codeExecSettings(ctx.config);
  const interpreter = language === "python" ? findPython(settings.mode) : process.execPath;
  if (!interpreter)
    return toolError(
      'No Python 3 found (looked for /usr/bin/python3 and python3 on PATH); use language "javascript".',
    );
  const exposed = sandboxTools(service.available());
  // The project's directory in project mode on the local backend; otherwise the script's temp dir.
  const project = settings.mode === "project" && ctx.env.backend === "local";
  const outcome = await runScript({
    language,
    code,
    interpreter,
    ...(project ? { cwd: ctx.env.getCwd() } : {}),
    env: (socket) =>
      scriptEnv(
        process.env,
        [...(ctx.config.terminal?.env_passthrough ?? []), ...(ctx.skills?.envPassthrough() ?? [])],
        socket,
      ),
    tools: exposed.map((name) => stubSpec(name, registry.get(name)!.schema)),
    callTool: (name, toolArgs, signal) =>
      service.call(name, sandboxArgs(name, toolArgs), { parent: "execute_code", signal }),
    refuse: (name) => refusal(name, exposed, registry.has(name)),
    maxToolCalls: settings.maxToolCalls,
    timeoutMs: timeoutArg(args, settings.timeoutSeconds) * 1000,
    signal: ctx.signal,
  });
  return JSON.stringify(outcome);
}

/** Registers execute_code (toolset code_execution); hidden on Windows, where there are no Unix sockets. */
export function registerCodeExecTool(registry: HermesToolRegistry, config?: HermesConfig): void {
  registry.register({
    name: "execute_code",
    toolset: "code_execution",
    schema: executeCodeSchema([], config),
    // The description names the functions this session's scripts can actually call.
    dynamicSchemaOverrides: (available) =>
      executeCodeSchema(
        sandboxTools(available).map((n) => signature(stubSpec(n, registry.get(n)!.schema))),
        config,
      ),
    handler: (args, ctx) => executeCodeTool(registry, args, ctx),
    checkFn: () => process.platform !== "win32",
    emoji: "🐍",
  });
}
