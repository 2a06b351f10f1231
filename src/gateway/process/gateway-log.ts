import { join } from "node:path";
import { createLogger } from "../../core/log.js";
import type { GatewayLog } from "../services.js";

export interface GatewayLogger {
  log: GatewayLog;
  /** Closes the file (the next record opens it again). */
  close(): void;
  readonly path: string;
}

const FILE_NAME = "gateway.log";

export const gatewayLogPath = (home: string): string => join(home, "logs", FILE_NAME);

/**
 * HERMES_HOME/logs/gateway.log: the gateway's own records (platforms, deliveries, drains), in the
 * same format as agent.log and written the same way. Never throws: logging is not worth a crash.
 */
export function createGatewayLogger(home: string, redact?: (text: string) => string): GatewayLogger {
  const logger = createLogger(home, "info", FILE_NAME, redact ? { redact } : {});
  return {
    log: (level, message, fields) => logger.log(level, message, { component: "gateway", ...fields }),
    path: gatewayLogPath(home),
    // flush() closes the file before its first await: the file is closed when this returns.
    close: () => void logger.flush(),
  };
}
