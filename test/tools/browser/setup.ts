import { readdirSync, readFileSync } from "node:fs";
import type { HermesConfig } from "../../../src/core/config-defaults.js";
import { registerBrowserTools } from "../../../src/tools/builtin/browser/index.js";
import { BrowserManager, type BrowserManagerOptions } from "../../../src/tools/builtin/browser/manager.js";
import { DEFAULT_BROWSER_SETTINGS, findChromium } from "../../../src/tools/builtin/browser/settings.js";
import type { ToolContext } from "../../../src/tools/context.js";
import { skipBecause } from "../../support/skip.js";
import { createHarness, type ToolHarness } from "../helpers.js";

/** True (and the reason printed once) when there is no Chromium to test with. */
export const noChromium = (): boolean =>
  skipBecause(
    "browser tests",
    findChromium("") ? false : "no Chromium on PATH (Debian/Ubuntu: apt-get install chromium)",
  );

export interface BrowserHarness extends ToolHarness {
  manager: BrowserManager;
  /** Runs a tool as task `taskId` and parses its JSON result. */
  callAs(taskId: string, name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface BrowserHarnessOptions extends Partial<Omit<BrowserManagerOptions, "settings">> {
  settings?: Partial<BrowserManagerOptions["settings"]>;
  config?: (c: HermesConfig) => void;
  /** security.allow_private_urls (default true: the test site is on loopback). */
  allowPrivate?: boolean;
}

/** The tool harness with the browser tools on a manager of their own. */
export async function createBrowserHarness(options: BrowserHarnessOptions = {}): Promise<BrowserHarness> {
  const h = await createHarness({
    config: (c) => {
      c.security.allow_private_urls = options.allowPrivate ?? true;
      options.config?.(c);
    },
  });
  const manager = new BrowserManager({
    ...options,
    settings: { ...DEFAULT_BROWSER_SETTINGS, ...options.settings },
  });
  registerBrowserTools(h.registry, { manager });
  const ctxFor = (taskId: string): ToolContext => ({ ...h.ctx, taskId });
  return {
    ...h,
    manager,
    async callAs(taskId, name, args = {}) {
      return JSON.parse(await h.registry.dispatch(name, args, ctxFor(taskId))) as Record<string, unknown>;
    },
    async dispose() {
      await manager.closeAll();
      await h.dispose();
    },
  };
}

/** Pids of live processes whose command line mentions `needle` (e.g. a browser's profile directory). */
export function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes(needle)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** The ref the snapshot gives the line `role "name"`, e.g. refOf(s, 'link "Form"') → "@e2". */
export function refOf(snapshot: unknown, element: string): string {
  const escaped = element.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`- ${escaped}(?: \\[[^\\]]*\\])* (@e\\d+)`).exec(String(snapshot));
  if (!m) throw new Error(`no ref for ${element} in:\n${String(snapshot)}`);
  return m[1]!;
}

/** Polls `done` until it holds or 15 s pass; true when it held. */
export async function eventually(done: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return done();
}
