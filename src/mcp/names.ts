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

/** The first 6 hex digits of sha256 of `parts`: a short mark that stays the same across restarts. */
const mark = (...parts: string[]): string =>
  createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 6);

/**
 * The registered name of a server's tool whose plain name (`base`) another tool has: `base` plus a
 * mark of the server and the tool's own name (so the same tool gets the same name at every start),
 * cut to fit 64 characters.
 */
export function markedToolName(base: string, server: string, tool: string): string {
  const suffix = `_${mark(server, tool)}`;
  return `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/**
 * Names that sanitize alike, in the order they get to keep the plain form: a name already in
 * sanitized form first (`a_b` keeps `a_b` over `a.b`), then by code point.
 */
export function claimOrder(names: readonly string[]): string[] {
  const natural = (n: string): number => (sanitizeName(n) === n ? 0 : 1);
  return [...names].sort((a, b) => natural(a) - natural(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The toolset of each server: `mcp-<server>`, except when two configured servers' names sanitize
 * alike; then the first in `claimOrder` keeps it and the others get a mark of their own name.
 */
export function mcpToolsets(servers: readonly string[]): Map<string, string> {
  const groups = new Map<string, string[]>();
  for (const name of servers) {
    const toolset = mcpToolset(name);
    groups.set(toolset, [...(groups.get(toolset) ?? []), name]);
  }
  const out = new Map<string, string>();
  for (const [toolset, names] of groups)
    for (const [i, name] of claimOrder(names).entries())
      out.set(name, i === 0 ? toolset : `${toolset}-${mark(name)}`);
  return out;
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
