/**
 * Shell commands as hooks (`hooks.<name>` in config.yaml). Each firing runs the command with a JSON
 * payload on stdin and reads a JSON answer from stdout:
 *   stdin:  {hook_event_name, tool_name, tool_input, session_id, cwd, extra: {the hook's other fields}}
 *   stdout: nothing, or e.g. {"action": "block", "message": "..."} (pre_tool_call),
 *           {"context": "..."} (pre_llm_call), {"result": "..."} (transform_* hooks).
 * For pre_tool_call, exit status 2 blocks the call with stderr as the reason. Any other non-zero
 * status, or output that is not JSON, is a failure the bus reports. The command runs in its own
 * process group, so a timed-out hook is killed with everything it started.
 */
import { spawn } from "node:child_process";
import type { HookCommandEntry, HookName, HookSettings } from "../core/config-defaults.js";
import { HOOK_NAMES } from "../core/config-defaults.js";

export interface ShellHook {
  name: HookName;
  /** What reports and logs call it. */
  label: string;
  handler: (payload: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;
  timeoutMs?: number;
  matches?: (toolName: string) => boolean;
}

export interface ShellHookOptions {
  /** Where commands run (the session's directory). */
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Exit status that blocks a pre_tool_call without any JSON. */
const BLOCK_STATUS = 2;
/** Output kept per stream; a hook printing more is cut (it is an answer, not a log). */
const MAX_OUTPUT = 1024 * 1024;
const MESSAGE_CHARS = 400;
/** Payload fields that go at the top level of the JSON; the rest go under `extra`. */
const TOP_LEVEL = new Set(["tool_name", "args", "session_id"]);

/** The stdin JSON of one firing. */
export function shellPayload(name: HookName, payload: Record<string, unknown>, cwd: string): string {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (!TOP_LEVEL.has(k)) extra[k] = v;
  return JSON.stringify({
    hook_event_name: name,
    tool_name: payload.tool_name ?? null,
    tool_input: payload.args ?? null,
    session_id: payload.session_id ?? "",
    cwd,
    extra,
  });
}

/** A `matcher` as a whole-name test; an invalid expression matches its own text only. */
function matcherOf(matcher: string | undefined): ((tool: string) => boolean) | undefined {
  const m = matcher?.trim();
  if (!m) return undefined;
  try {
    const re = new RegExp(`^(?:${m})$`);
    return (tool) => re.test(tool);
  } catch {
    return (tool) => tool === m;
  }
}

/** The hooks of config.yaml's `hooks` block, in order (per hook, in the order written). */
export function shellHooks(settings: HookSettings, o: ShellHookOptions): ShellHook[] {
  const hooks: ShellHook[] = [];
  for (const name of HOOK_NAMES) {
    for (const entry of (settings[name] ?? []) as HookCommandEntry[]) {
      const spec = typeof entry === "string" ? { command: entry } : entry;
      const command = spec.command.trim();
      if (!command) continue;
      const matches = matcherOf(spec.matcher);
      hooks.push({
        name,
        label: command,
        handler: (payload, signal) => runShellHook(name, command, payload, signal, o),
        ...(spec.timeout ? { timeoutMs: spec.timeout * 1000 } : {}),
        ...(matches ? { matches } : {}),
      });
    }
  }
  return hooks;
}

/** Runs one command for one firing; resolves to its parsed answer (undefined for no output). */
export function runShellHook(
  name: HookName,
  command: string,
  payload: Record<string, unknown>,
  signal: AbortSignal,
  o: ShellHookOptions,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: o.cwd,
      env: { ...o.env, HERMES_HOME: o.home, HERMES_HOOK: name },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    const keep = (acc: string, chunk: Buffer): string =>
      acc.length < MAX_OUTPUT ? acc + chunk.toString() : acc;
    child.stdout.on("data", (d: Buffer) => {
      stdout = keep(stdout, d);
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr = keep(stderr, d);
    });
    const kill = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener("abort", kill, { once: true });
    child.on("error", (err) => {
      signal.removeEventListener("abort", kill);
      reject(new Error(`could not start: ${err.message}`));
    });
    child.on("close", (code, sig) => {
      signal.removeEventListener("abort", kill);
      try {
        resolve(answerOf(name, code, sig, stdout.trim(), stderr.trim()));
      } catch (err) {
        reject(err);
      }
    });
    // A command that never reads its stdin closes the pipe early: not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(shellPayload(name, payload, o.cwd));
  });
}

function answerOf(
  name: HookName,
  code: number | null,
  sig: NodeJS.Signals | null,
  out: string,
  err: string,
): unknown {
  const parsed = out ? parseJson(out) : undefined;
  if (code === BLOCK_STATUS && name === "pre_tool_call") {
    const answer = parsed?.ok ? parsed.value : undefined;
    if (typeof answer === "object" && answer !== null) return answer;
    return { action: "block", message: err.slice(0, MESSAGE_CHARS) || "Blocked by a shell hook." };
  }
  if (code !== 0) {
    const why = sig ? `was killed (${sig})` : `exited with status ${code}`;
    throw new Error(`${why}${err ? `: ${err.slice(0, MESSAGE_CHARS)}` : ""}`);
  }
  if (!parsed) return undefined;
  if (!parsed.ok) throw new Error(`printed something that is not JSON: ${out.slice(0, 200)}`);
  return parsed.value;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
