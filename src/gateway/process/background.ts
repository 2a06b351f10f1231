/**
 * The gateway as a detached background process, where systemd is not available: `gateway run`
 * with its output appended to logs/gateway.log, tracked by the PID file it writes itself.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { gatewayLogPath } from "./gateway-log.js";
import { readPidRecord } from "./pid-file.js";
import type { GatewayIdentity } from "./service-identity.js";
import { readStatusFile } from "./status-file.js";

export type BackgroundStart =
  | { kind: "running"; pid: number }
  /** Still connecting when the wait ended (it goes on in the background). */
  | { kind: "starting"; pid: number }
  | { kind: "failed"; code: number | null; output: string };

const POLL_MS = 200;
const OUTPUT_LINES = 20;

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** What the child wrote to the log since `offset`: its last lines, for a failure report. */
function outputSince(path: string, offset: number): string {
  try {
    const text = readFileSync(path).subarray(offset).toString("utf8");
    return text.trimEnd().split("\n").slice(-OUTPUT_LINES).join("\n");
  } catch {
    return "";
  }
}

/**
 * Starts `gateway run` detached and waits up to `waitMs` until it reports itself running in its
 * status file, or exits (then its output is returned).
 */
export async function startInBackground(
  identity: GatewayIdentity,
  options: { env: NodeJS.ProcessEnv; waitMs: number },
): Promise<BackgroundStart> {
  const logPath = gatewayLogPath(identity.home);
  mkdirSync(dirname(logPath), { recursive: true });
  const offset = sizeOf(logPath);
  const fd = openSync(logPath, "a");
  let exited: { code: number | null } | undefined;
  let pid: number | undefined;
  try {
    const [command, ...args] = identity.command;
    const child = spawn(command!, args, {
      cwd: identity.home,
      env: { ...options.env, ...identity.environment },
      detached: true,
      stdio: ["ignore", fd, fd],
    });
    pid = child.pid;
    child.on("exit", (code) => {
      exited = { code };
    });
    child.on("error", () => {
      exited = { code: null };
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + options.waitMs;
  while (Date.now() < deadline) {
    if (exited) return { kind: "failed", code: exited.code, output: outputSince(logPath, offset) };
    const status = readStatusFile(identity.home);
    if (pid !== undefined && status?.pid === pid && status.state === "running")
      return { kind: "running", pid };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (exited) return { kind: "failed", code: exited.code, output: outputSince(logPath, offset) };
  const record = readPidRecord(identity.home);
  return { kind: "starting", pid: record?.pid ?? pid ?? 0 };
}
