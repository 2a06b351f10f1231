import { isGatewayProcess } from "./pid-file.js";

export type StopOutcome = "stopped" | "killed" | "not-running";

const POLL_MS = 100;
/** After SIGKILL, how long to wait for the process to disappear. */
const KILL_WAIT_MS = 5_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isGatewayProcess(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/**
 * Stops a running gateway: SIGTERM (it drains its turns), then SIGKILL when it is still there after
 * `graceMs` (its drain_timeout plus a margin).
 */
export async function stopGatewayProcess(pid: number, graceMs: number): Promise<StopOutcome> {
  if (!isGatewayProcess(pid)) return "not-running";
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return "not-running";
  }
  if (await waitGone(pid, graceMs)) return "stopped";
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    return "stopped";
  }
  await waitGone(pid, KILL_WAIT_MS);
  return "killed";
}
