import type { GatewayService, PlatformAdapter } from "../types.js";

/** The message of anything thrown. */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * A short description of a connected adapter for the console and the status file: the bot's
 * account when the adapter tells it (`describe()`, or `username`), or the port a local server
 * listens on.
 */
export function adapterDetail(adapter: PlatformAdapter): string | undefined {
  const a = adapter as PlatformAdapter & { describe?: () => unknown; username?: unknown; port?: unknown };
  try {
    if (typeof a.describe === "function") {
      const text = a.describe();
      if (typeof text === "string" && text) return text;
    }
  } catch {
    // A description is not worth an error.
  }
  if (typeof a.username === "string" && a.username) return `as @${a.username.replace(/^@/, "")}`;
  if (typeof a.port === "number" && a.port > 0) return `listening on port ${a.port}`;
  return undefined;
}

/** One console line for a started service, from its status(). */
export function serviceDetail(service: GatewayService): string {
  let status: Record<string, unknown>;
  try {
    status = service.status();
  } catch {
    return "started";
  }
  for (const key of ["url", "address", "listening"]) {
    const value = status[key];
    if (typeof value === "string" && value) return `listening on ${value}`;
  }
  return "started";
}
