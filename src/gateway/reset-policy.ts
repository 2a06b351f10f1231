import type { SessionResetSettings } from "../core/config-gateway.js";

export type ResetMode = "none" | "idle" | "daily" | "both";

const MODES: readonly ResetMode[] = ["none", "idle", "daily", "both"];

/** config's `session_reset.mode`; anything unknown means none (a typo never wipes conversations). */
export function resetModeOf(settings: SessionResetSettings): ResetMode {
  const mode = String(settings.mode ?? "none").toLowerCase();
  return (MODES as readonly string[]).includes(mode) ? (mode as ResetMode) : "none";
}

/** The latest local `atHour`:00 at or before `now` (ms epoch). */
export function lastDailyBoundary(now: number, atHour: number): number {
  const hour = Math.min(23, Math.max(0, Math.floor(atHour)));
  const d = new Date(now);
  d.setHours(hour, 0, 0, 0);
  if (d.getTime() > now) d.setDate(d.getDate() - 1);
  return d.getTime();
}

/**
 * Whether a message arriving at `now` starts a new session, the chat's last message having come at
 * `lastActiveAt`: after `idle_minutes` of silence (idle), when a daily `at_hour` boundary passed in
 * between (daily), or either (both).
 */
export function shouldReset(settings: SessionResetSettings, lastActiveAt: number, now: number): boolean {
  const mode = resetModeOf(settings);
  if (mode === "none") return false;
  const idle =
    (mode === "idle" || mode === "both") &&
    settings.idle_minutes > 0 &&
    now - lastActiveAt >= settings.idle_minutes * 60_000;
  const daily =
    (mode === "daily" || mode === "both") && lastActiveAt < lastDailyBoundary(now, settings.at_hour);
  return idle || daily;
}
