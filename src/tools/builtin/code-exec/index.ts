import type { HermesConfig } from "../../../core/config.js";
import type { HermesToolRegistry, ToolContext } from "../../context.js";
import type { ToolSchema } from "../../registry.js";
import { argString, toolError } from "../util.js";
import { findPython, scriptEnv } from "./env.js";
import { codeExecSettings, MAX_STDOUT_BYTES } from "./limits.js";
import type { ScriptLanguage } from "./run.js";
import { refusal, sandboxArgs, sandboxTools, stubSpec } from "./sandbox-tools.js";

export const WINDOWS_REFUSAL =
  "execute_code is not available on Windows; make the tool calls one by one instead.";

/** The tool's schema for a session whose scripts may call `tools` (their arguments are the tools' own). */
export function executeCodeSchema(tools: readonly string[], config?: HermesConfig): ToolSchema {
  const { timeoutSeconds, maxToolCalls } = codeExecSettings(config);
  const list = tools.length > 0 ? compactNames(tools) : "none in this session (plain computation only)";
  return {
    description:
      "Run a Python 3 (or language=javascript) script that calls tools; only what it prints comes back. " +
      "For 3+ tool calls with logic between. " +
      `Functions in hermes_tools, with the tools' arguments (JS: await; one args object): ${list}. Results come parsed ` +
      '("error" on failure); terminal: foreground only. Stdlib only. ' +
      `Limits: ${timeoutSeconds} s, ${maxToolCalls} calls, ${MAX_STDOUT_BYTES / 1000} KB printed.`,
    parameters: {
      type: "object",
      properties: {
        code: { type: "string" },
        language: { type: "string", enum: ["python", "javascript"] },
        timeout: { type: "integer", description: "Seconds." },
      },
      required: ["code"],
    },
  };
}

/**
 * The names, three or more sharing a prefix written once: `browser_navigate/click/type`. Fewer bytes
 * on every request for the same list.
 */
export function compactNames(names: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    // Names without "_" group under themselves, alone.
    const key = name.includes("_") ? name.slice(0, name.indexOf("_") + 1) : name;
    const members = groups.get(key);
    if (members) members.push(name);
    else groups.set(key, [name]);
  }
  const parts: string[] = [];
  for (const [prefix, members] of groups) {
    if (members.length < 3) parts.push(...members);
    else parts.push(`${prefix}${members.map((m) => m.slice(prefix.length)).join("/")}`);
  }
  return parts.join(", ");
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
  // The runner (RPC server, interpreter launch, the tool stubs) loads with the first script.
  const { runScript } = await import("./run.js");
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
    dynamicSchemaOverrides: (available) => executeCodeSchema(sandboxTools(available), config),
    handler: (args, ctx) => executeCodeTool(registry, args, ctx),
    checkFn: () => process.platform !== "win32",
    emoji: "🐍",
  });
}
