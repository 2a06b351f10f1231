import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { formatRecord } from "../../core/log.js";
import type { GatewayLog } from "../services.js";

export interface GatewayLogger {
  log: GatewayLog;
  /** Closes the file (the next record opens it again). */
  close(): void;
  readonly path: string;
}

export const gatewayLogPath = (home: string): string => join(home, "logs", "gateway.log");

/**
 * HERMES_HOME/logs/gateway.log: the gateway's own records (platforms, deliveries, drains), one JSON
 * object per line in the same format as agent.log. Never throws: logging is not worth a crash.
 */
export function createGatewayLogger(home: string): GatewayLogger {
  const path = gatewayLogPath(home);
  let fd: number | undefined;
  let failed = false;
  const log: GatewayLog = (level, message, fields) => {
    if (failed) return;
    try {
      if (fd === undefined) {
        mkdirSync(join(home, "logs"), { recursive: true });
        fd = openSync(path, "a");
      }
      writeSync(fd, formatRecord(level, message, { component: "gateway", ...fields }));
    } catch {
      failed = true;
    }
  };
  return {
    log,
    path,
    close: () => {
      if (fd === undefined) return;
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
      fd = undefined;
    },
  };
}
