import { createHash } from "node:crypto";

/** Provider APIs accept function names up to 64 characters of [A-Za-z0-9_-]. */
const MAX_NAME = 64;

/** A server or tool name as a part of a function name: anything outside [A-Za-z0-9_-] becomes `_`. */
export const sanitizeName = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_");

/** The toolset of a server's tools: `mcp-<server>`. */
export const mcpToolset = (server: string): string => `mcp-${sanitizeName(server)}`;

/**
 * The registered name of a server's tool: `mcp_<server>_<tool>`. A name past 64 characters keeps
 * its start plus a short hash of the whole, so two long names never meet.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp_${sanitizeName(server)}_${sanitizeName(tool)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(full).digest("hex").slice(0, 8);
  const keep = MAX_NAME - hash.length - 1;
  return `${full.slice(0, keep)}_${hash}`;
}

/** Whether a raw server tool name passes the server's include/exclude filters. */
export function toolAllowed(
  tool: string,
  include: readonly string[] | undefined,
  exclude: readonly string[],
): boolean {
  if (include && !include.includes(tool)) return false;
  return !exclude.includes(tool);
}
