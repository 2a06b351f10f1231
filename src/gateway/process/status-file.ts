/**
 * HERMES_HOME/gateway-status.json: what the running gateway is doing, rewritten every few seconds
 * and on changes, so `hermes gateway status` (another process) can show it without asking it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fs.js";

export type GatewayState = "starting" | "running" | "draining" | "stopped";

export interface PlatformStatus {
  name: string;
  connected: boolean;
  /** "connected as @bot", "listening on 0.0.0.0:8644", ... */
  detail?: string;
  lastError?: string;
}

export interface LaneStatus {
  key: string;
  /** A turn is running in this chat. */
  running: boolean;
  /** Messages waiting behind it. */
  queued: number;
}

export interface GatewayStatusFile {
  pid: number;
  state: GatewayState;
  home: string;
  started_at: string;
  updated_at: string;
  stopped_at?: string;
  platforms: PlatformStatus[];
  /** Services (the API server): their own status() fields. */
  services: Array<{ name: string } & Record<string, unknown>>;
  live_sessions: number;
  lanes: LaneStatus[];
  /** Outbound messages recorded but not yet fully sent; null when the ledger cannot say. */
  ledger_pending: number | null;
  /** Age of the oldest of them, in ms. */
  ledger_oldest_pending_ms?: number | null;
  last_error?: string;
}

export const statusFilePath = (home: string): string => join(home, "gateway-status.json");

export function writeStatusFile(home: string, status: GatewayStatusFile): void {
  writeFileAtomic(statusFilePath(home), `${JSON.stringify(status, null, 2)}\n`);
}

/** The last status written; undefined when there is none or it cannot be read. */
export function readStatusFile(home: string): GatewayStatusFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(statusFilePath(home), "utf8")) as GatewayStatusFile;
    return typeof parsed === "object" && parsed !== null && typeof parsed.pid === "number"
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

/** Human lines of a status, for `hermes gateway status`. */
export function formatStatus(status: GatewayStatusFile, running: boolean): string {
  const lines: string[] = [];
  if (running) {
    lines.push(`Gateway running (pid ${status.pid}, ${status.state}, since ${status.started_at})`);
  } else {
    const when = status.stopped_at ?? status.updated_at;
    lines.push(
      `Gateway not running (last: pid ${status.pid}, ${status.state === "stopped" ? "stopped" : "ended"} ${when})`,
    );
  }
  lines.push(`Home: ${status.home}`);
  lines.push("Platforms:");
  if (status.platforms.length === 0) lines.push("  (none)");
  for (const p of status.platforms) {
    const state = p.connected ? "connected" : "not connected";
    const detail = !p.detail ? "" : p.detail.startsWith("as ") ? ` ${p.detail}` : ` (${p.detail})`;
    const error = p.lastError ? ` - last error: ${p.lastError}` : "";
    lines.push(`  ${p.name}: ${state}${detail}${error}`);
  }
  for (const s of status.services) {
    const { name, ...rest } = s;
    const fields = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(", ");
    lines.push(`  ${name}: service${fields ? ` (${fields})` : ""}`);
  }
  const running_ = status.lanes.filter((l) => l.running).length;
  const queued = status.lanes.reduce((n, l) => n + l.queued, 0);
  lines.push(`Live sessions: ${status.live_sessions}`);
  lines.push(`Chats busy: ${running_} running, ${queued} queued`);
  for (const l of status.lanes) {
    if (l.running || l.queued > 0)
      lines.push(`  ${l.key}: ${l.running ? "running" : "idle"}, ${l.queued} queued`);
  }
  const oldest = status.ledger_oldest_pending_ms;
  const age = typeof oldest === "number" ? ` (oldest ${formatAge(oldest)})` : "";
  lines.push(
    `Undelivered messages: ${status.ledger_pending ?? "unknown"}${status.ledger_pending ? age : ""}`,
  );
  if (status.last_error) lines.push(`Last error: ${status.last_error}`);
  lines.push(`Updated: ${status.updated_at}`);
  return lines.join("\n");
}

function formatAge(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}
