/**
 * Starting Chromium (or attaching to a running Chrome) through playwright-core, loaded on first
 * use only. A launched browser gets a fresh, empty profile directory that is removed when it
 * closes, and Playwright ends its whole process group when Hermes exits.
 */
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";

/** The switches every launched browser gets (besides its profile and the DevTools pipe). */
export function chromiumFlags(root = process.getuid?.() === 0): string[] {
  return [
    "--headless",
    // Chromium's sandbox refuses to start as root; elsewhere it stays on.
    ...(root ? ["--no-sandbox"] : []),
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // Pages restored from the back-forward cache never fire their load events again.
    "--disable-back-forward-cache",
    // Containers give /dev/shm a few MB: Chromium's renderers crash on it.
    "--disable-dev-shm-usage",
    // http:// stays http:// (no silent upgrade), and redirects survive the guard's request interception.
    "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,AvoidCorsURLLoaderRestartOnRedirect",
  ];
}

export interface BrowserHandle {
  browser: Browser;
  /** launched: our own process; cdp: someone else's Chrome we attached to. */
  kind: "launched" | "cdp";
  /** The launched browser's profile directory (removed on close). */
  userDataDir?: string;
  /** Launched: ends the browser and removes its profile. Attached: disconnects, leaving Chrome running. */
  close(): Promise<void>;
}

export interface LaunchOptions {
  executablePath: string;
  /** More switches (tests map host names with --host-resolver-rules). */
  extraArgs?: readonly string[];
  timeoutMs?: number;
}

async function playwright(): Promise<typeof import("playwright-core")> {
  try {
    return await import("playwright-core");
  } catch (err) {
    throw new Error(`playwright-core is not installed (${(err as Error).message}); reinstall Hermes.`);
  }
}

/** Launches a headless Chromium with a new profile. Throws with Chromium's own words when it cannot start. */
export async function launchChromium(options: LaunchOptions): Promise<BrowserHandle> {
  const { chromium } = await playwright();
  const userDataDir = await mkdtemp(join(tmpdir(), "hermes-browser-"));
  // Hermes may exit without closing the browser (a signal, process.exit): the profile still goes.
  const removeProfile = () => rmSync(userDataDir, { recursive: true, force: true });
  process.once("exit", removeProfile);
  // Chromium's own temp files (its singleton socket folder) go inside the profile, which is removed
  // even when the browser is killed: nothing is left in the system's temp folder.
  const profileTemp = join(userDataDir, "tmp");
  let browser: Browser;
  try {
    await mkdir(profileTemp);
    browser = await chromium.launch({
      executablePath: options.executablePath,
      // Our switches only: Playwright's defaults include automation flags and a profile of its own.
      ignoreDefaultArgs: true,
      args: [
        ...chromiumFlags(),
        ...(options.extraArgs ?? []),
        `--user-data-dir=${userDataDir}`,
        "--remote-debugging-pipe",
        "--no-startup-window",
      ],
      headless: true,
      env: { ...process.env, TMPDIR: profileTemp },
      // Ctrl+C interrupts the agent's turn; it must not take the browser down with it.
      handleSIGINT: false,
      timeout: options.timeoutMs ?? 30_000,
    });
  } catch (err) {
    process.removeListener("exit", removeProfile);
    await rm(userDataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    browser,
    kind: "launched",
    userDataDir,
    async close() {
      await browser.close().catch(() => undefined);
      process.removeListener("exit", removeProfile);
      await rm(userDataDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** Attaches to a Chrome started with --remote-debugging-port (`browser.cdp_url` or /browser connect). */
export async function connectChrome(cdpUrl: string, timeoutMs = 15_000): Promise<BrowserHandle> {
  const { chromium } = await playwright();
  const browser = await chromium.connectOverCDP(cdpUrl, { timeout: timeoutMs });
  return {
    browser,
    kind: "cdp",
    async close() {
      // Closing a connectOverCDP browser disconnects; the user's Chrome keeps running.
      await browser.close().catch(() => undefined);
    },
  };
}
