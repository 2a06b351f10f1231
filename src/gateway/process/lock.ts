import { acquireGatewayLock, type GatewayPidRecord } from "./pid-file.js";
import { stopGatewayProcess } from "./stop.js";

export type TakeLockResult = { release: () => void } | { refused: string };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const describeHolder = (holder: GatewayPidRecord): string =>
  holder.pid > 0
    ? `pid ${holder.pid}${holder.started_at ? `, started ${holder.started_at}` : ""}`
    : "it is starting now";

/**
 * Takes the profile's gateway lock. A running gateway refuses it unless `replace`: then it is
 * stopped (SIGTERM; SIGKILL after `graceMs`) and its lock taken over.
 */
export async function takeGatewayLock(
  home: string,
  options: { replace: boolean; graceMs: number; say: (line: string) => void },
): Promise<TakeLockResult> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const result = acquireGatewayLock(home);
    if ("release" in result) return { release: result.release };
    const holder = result.heldBy;
    if (!options.replace) {
      return {
        refused:
          `A gateway is already running for ${home} (${describeHolder(holder)}).\n` +
          "Stop it with 'hermes gateway stop', or take over with 'hermes gateway run --replace'.",
      };
    }
    if (holder.pid <= 0) {
      await sleep(500); // its PID file is being written: look again
      continue;
    }
    options.say(`Stopping the running gateway (pid ${holder.pid})...`);
    const outcome = await stopGatewayProcess(holder.pid, options.graceMs);
    if (outcome === "killed")
      options.say(`The gateway (pid ${holder.pid}) did not stop in time and was killed.`);
  }
  return { refused: `Could not take over the gateway of ${home}: another one keeps starting.` };
}
