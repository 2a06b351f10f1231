/**
 * `browser.*` from config.yaml, and where the Chromium binary is. The browser is Debian's
 * `chromium` (or any Chrome) found on PATH or at `browser.executable_path`: nothing is downloaded.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { HermesConfig } from "../../../core/config.js";

export interface BrowserSettings {
  /** Chromium binary; "" = the first of CHROMIUM_NAMES on PATH. */
  executablePath: string;
  /** Attach to a running Chrome over the DevTools protocol instead of launching one. */
  cdpUrl: string;
  /** A task's browser context closes after this long without a browser call. */
  inactivityTimeoutMs: number;
  /** Snapshots longer than this are cut (or summarised) with a note. */
  snapshotMaxChars: number;
  /** Summarise long snapshots with the auxiliary model instead of cutting them. */
  summarizeSnapshots: boolean;
}

export const DEFAULT_BROWSER_SETTINGS: BrowserSettings = {
  executablePath: "",
  cdpUrl: "",
  inactivityTimeoutMs: 120_000,
  snapshotMaxChars: 8000,
  summarizeSnapshots: false,
};

/** Names Chromium goes by on Linux distributions and in Google's packages, most likely first. */
export const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** The settings in force for `config` (missing keys take the defaults). */
export function browserSettings(config: HermesConfig | undefined): BrowserSettings {
  // Partial: configs built by hand (tests, embedders) may leave the block or keys out.
  const b: Partial<HermesConfig["browser"]> = config?.browser ?? {};
  const str = (v: unknown, d: string) => (typeof v === "string" ? v.trim() : d);
  const num = (v: unknown, d: number) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : d);
  return {
    executablePath: str(b.executable_path, DEFAULT_BROWSER_SETTINGS.executablePath),
    cdpUrl: str(b.cdp_url, DEFAULT_BROWSER_SETTINGS.cdpUrl),
    inactivityTimeoutMs:
      num(b.inactivity_timeout, DEFAULT_BROWSER_SETTINGS.inactivityTimeoutMs / 1000) * 1000,
    snapshotMaxChars: Math.trunc(num(b.snapshot_max_chars, DEFAULT_BROWSER_SETTINGS.snapshotMaxChars)),
    summarizeSnapshots: b.summarize_snapshots === true,
  };
}

function isExecutable(path: string): boolean {
  try {
    // Most candidates do not exist: a stat that does not throw for them is far cheaper than the
    // exception accessSync builds (the search tries every name in every PATH folder, at start-up).
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium binary to launch: `configured` when it names an executable (a path, or a name
 * looked up on PATH), else the first of CHROMIUM_NAMES on PATH. undefined when there is none.
 */
export function findChromium(configured: string, path = process.env.PATH ?? ""): string | undefined {
  const dirs = path.split(delimiter).filter(Boolean);
  const onPath = (name: string) => dirs.map((d) => join(d, name)).find(isExecutable);
  if (configured)
    return isAbsolute(configured) ? (isExecutable(configured) ? configured : undefined) : onPath(configured);
  for (const name of CHROMIUM_NAMES) {
    const found = onPath(name);
    if (found) return found;
  }
  return undefined;
}

/** Why the browser tools cannot run here, for the model and `/browser status`; undefined when they can. */
export function unavailableReason(settings: BrowserSettings): string | undefined {
  if (settings.cdpUrl) return undefined;
  if (findChromium(settings.executablePath)) return undefined;
  return settings.executablePath
    ? `browser.executable_path '${settings.executablePath}' is not an executable file`
    : "no Chromium found on PATH: install it (Debian/Ubuntu: apt-get install chromium) or set browser.executable_path";
}
