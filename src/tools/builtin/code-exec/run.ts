import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killHolders, outputEnds, signalHolders } from "../../environments/pipe-holders.js";
import { killGroup, terminateGroup, trackGroup, untrackGroup } from "../../environments/process-groups.js";
import { fromChildProcess, supervise } from "../../environments/supervise.js";
import { launchPlan } from "./launch.js";
import { KILL_GRACE_MS, MAX_STDERR_BYTES, MAX_STDOUT_BYTES, OutputCapture } from "./limits.js";
import { type RpcReply, startRpcServer } from "./rpc-server.js";
import type { StubSpec } from "./sandbox-tools.js";
import { nodeStubs } from "./stubs-node.js";
import { pythonStubs } from "./stubs-python.js";

export type ScriptLanguage = "python" | "javascript";
export type ScriptStatus = "success" | "error" | "timeout" | "interrupted";

export const INTERRUPTED_NOTE = "[execution interrupted — user sent a new message]";

export interface RunScriptOptions {
  language: ScriptLanguage;
  code: string;
  /** Python or node binary. */
  interpreter: string;
  /** Working directory; undefined runs the script in its private temp dir. */
  cwd?: string;
  /** Environment of the script (given the socket path). */
  env: (socketPath: string) => Record<string, string>;
  /** Tools the script may call (one stub each). */
  tools: readonly StubSpec[];
  /** Runs an allowed tool. Never throws. `signal` fires when the script is gone. */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  /** The error a script sees when it calls a tool outside `tools`. */
  refuse(name: string): string;
  maxToolCalls: number;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL on timeout. */
  killGraceMs?: number;
  /** User interrupt: the script is killed at once. */
  signal?: AbortSignal;
  maxStdoutBytes?: number;
  maxStderrBytes?: number;
}

export interface ScriptOutcome {
  status: ScriptStatus;
  output: string;
  error?: string;
  tool_calls_made: number;
  duration_seconds: number;
}

/** Writes the script and its hermes_tools module; returns the script's path. */
async function prepareDir(dir: string, opts: RunScriptOptions): Promise<string> {
  if (opts.language === "python") {
    await writeFile(join(dir, "hermes_tools.py"), pythonStubs(opts.tools));
    await writeFile(join(dir, "script.py"), opts.code);
    return join(dir, "script.py");
  }
  await writeFile(join(dir, "hermes_tools.mjs"), nodeStubs(opts.tools));
  // A package next to the script, so both `from "hermes_tools"` and `"./hermes_tools.mjs"` resolve.
  const pkg = join(dir, "node_modules", "hermes_tools");
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, "package.json"), '{"name":"hermes_tools","type":"module","main":"index.mjs"}\n');
  await writeFile(join(pkg, "index.mjs"), 'export * from "../../hermes_tools.mjs";\n');
  await writeFile(join(dir, "script.mjs"), opts.code);
  return join(dir, "script.mjs");
}

/**
 * Runs one script in a fresh child process with a private temp dir (script, generated module,
 * socket), serving its tool calls until it exits. The temp dir is removed in every case.
 * Never throws: failures come back as status "error".
 */
export async function runScript(opts: RunScriptOptions): Promise<ScriptOutcome> {
  const started = performance.now();
  let calls = 0;
  const outcome = (status: ScriptStatus, output: string, error?: string): ScriptOutcome => ({
    status,
    output,
    ...(error !== undefined ? { error } : {}),
    tool_calls_made: calls,
    duration_seconds: Math.round((performance.now() - started) / 10) / 100,
  });
  if (opts.signal?.aborted) return outcome("interrupted", "", INTERRUPTED_NOTE);
  const allowed = new Set(opts.tools.map((t) => t.name));
  const gone = new AbortController();
  const handler = async (tool: string, args: Record<string, unknown>): Promise<RpcReply> => {
    if (!allowed.has(tool)) return { error: opts.refuse(tool) };
    if (calls >= opts.maxToolCalls)
      return {
        error: `Tool call limit reached: a script may make ${opts.maxToolCalls} tool calls; this one was not run.`,
      };
    calls += 1;
    return { result: await opts.callTool(tool, args, gone.signal) };
  };
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(tmpdir(), "hermes-code-"));
    const scriptPath = await prepareDir(dir, opts);
    const socketPath = join(dir, "rpc.sock");
    const server = await startRpcServer(socketPath, handler);
    try {
      return await superviseScript(opts, scriptPath, opts.cwd ?? dir, opts.env(socketPath), outcome);
    } finally {
      gone.abort();
      await server.close();
    }
  } catch (err) {
    return outcome("error", "", `Could not run the script: ${(err as Error)?.message ?? String(err)}`);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

/** After the script exits, how long output held open by a leftover (setsid) child is waited for. */
const DRAIN_MS = 200;
/** How long the leftovers holding the script's output get to die once killed. */
const LEFTOVER_WAIT_MS = 1_000;

/**
 * Spawns the script and waits for it with the terminal's supervisor: the timeout (SIGTERM, then
 * SIGKILL after the grace) and the interrupt (SIGKILL) reach its process group and anything that
 * still holds its output, so a server started with setsid can neither hold up the result nor
 * outlive the run.
 */
async function superviseScript(
  opts: RunScriptOptions,
  scriptPath: string,
  cwd: string,
  env: Record<string, string>,
  outcome: (status: ScriptStatus, output: string, error?: string) => ScriptOutcome,
): Promise<ScriptOutcome> {
  const stdout = new OutputCapture(opts.maxStdoutBytes ?? MAX_STDOUT_BYTES, "stdout");
  const stderr = new OutputCapture(opts.maxStderrBytes ?? MAX_STDERR_BYTES, "stderr");
  const grace = opts.killGraceMs ?? KILL_GRACE_MS;
  const plan = launchPlan(opts.language, scriptPath);
  const child = spawn(opts.interpreter, plan.args, {
    cwd,
    env,
    detached: plan.detached,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  // Read while the script surely lives: these ends are how leftovers outside its group are found.
  const ends = outputEnds(pid);
  let outputOpen = true;
  const closed = new Promise<void>((resolveClose) =>
    child.once("close", () => {
      outputOpen = false;
      resolveClose();
    }),
  );
  if (pid !== undefined) trackGroup(pid);
  // Leftover children of the script (a background `&`) hold the pipes open: end the group with it.
  child.once("exit", () => {
    if (pid !== undefined) killGroup(pid, "SIGKILL");
  });
  let timedOut = false;
  const killNow = (): void => {
    if (pid !== undefined) killGroup(pid, "SIGKILL");
    signalHolders(ends, "SIGKILL");
  };
  // An interrupt during the grace after a timeout does not wait for the grace to run out.
  const escalate = (): void => {
    if (timedOut) killNow();
  };
  opts.signal?.addEventListener("abort", escalate, { once: true });
  const exec = await supervise(
    fromChildProcess(child),
    { push: (chunk, stream) => (stream === "stderr" ? stderr : stdout).push(chunk) },
    {
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      kill: (why) => {
        if (why === "interrupt") return killNow();
        timedOut = true;
        if (pid !== undefined) terminateGroup(pid, grace);
        signalHolders(ends, "SIGTERM");
      },
      drainMs: DRAIN_MS,
      // The script is given its whole grace to exit; past that, something unkillable holds it.
      settleMs: grace + 1_000,
    },
  );
  opts.signal?.removeEventListener("abort", escalate);
  if (pid !== undefined) {
    killGroup(pid, "SIGKILL");
    untrackGroup(pid);
  }
  if (outputOpen) await killHolders(ends, closed, LEFTOVER_WAIT_MS);

  if (exec.spawnError)
    return outcome("error", "", `Could not start ${opts.interpreter}: ${exec.spawnError.message}`);
  const out = stdout.text();
  const err = stderr.text().trimEnd();
  const withStderr = (note: string): string => (err ? `${note}\n${err}` : note);
  if (exec.killedBy === "interrupt") return outcome("interrupted", out, INTERRUPTED_NOTE);
  if (exec.killedBy === "timeout") {
    const secs = Math.round(opts.timeoutMs / 100) / 10;
    return outcome("timeout", out, withStderr(`Script exceeded its ${secs}s time limit and was killed.`));
  }
  if (exec.exitCode === 0) return outcome("success", out);
  const how = exec.exitSignal ? `was killed by ${exec.exitSignal}` : `exited with code ${exec.exitCode}`;
  return outcome("error", out, err || `Script ${how} without an error message.`);
}
