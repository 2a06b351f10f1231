/**
 * The browser service of one Hermes run: one Chromium (launched on first use, or a Chrome attached
 * over CDP) and one isolated context per task id. A task's context closes after
 * `browser.inactivity_timeout` without a call, and the browser itself once no context is left, so
 * an idle Hermes holds no Chromium process.
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { HermesConfig } from "../../../core/config.js";
import type { ChatMessage } from "../../../llm/types.js";
import type { Resolver } from "../web/url-guard.js";
import { guardOptionsFromSecurity } from "../web/website-policy.js";
import type { UrlChecker } from "./guard.js";
import type { BrowserHandle } from "./launch.js";
import type { BrowserSession } from "./session.js";
import { type BrowserSettings, findChromium, unavailableReason } from "./settings.js";
import { cachedChecker } from "./verdict-cache.js";

/**
 * A one-off request to a side model (auxiliary task `vision` for screenshots, `web_extract` for
 * long snapshots). Provided by the runtime, which owns the model clients. Never throws.
 */
export type SideModelCall = (
  task: "vision" | "web_extract",
  messages: ChatMessage[],
  signal?: AbortSignal,
) => Promise<{ ok: true; text: string } | { ok: false; error: string }>;

export interface BrowserManagerOptions {
  settings: BrowserSettings;
  sideModel?: SideModelCall;
  /** More Chromium switches (tests). */
  extraArgs?: readonly string[];
  /** Name resolution for the URL guard (tests); default: the system resolver. */
  resolve?: Resolver;
}

/** What a session is opened for: the task and the settings its tool calls carry. */
export interface SessionScope {
  taskId: string;
  config: HermesConfig;
  home: string;
  /** Downloads are saved under `<dir>/downloads`. */
  workDir: string;
}

export interface BrowserStatus {
  mode: "launch" | "cdp";
  /** The Chromium binary, or the DevTools URL attached to. */
  target: string | undefined;
  running: boolean;
  /** The launched browser's profile directory. */
  userDataDir?: string;
  sessions: Array<{ taskId: string; url: string }>;
}

export class BrowserManager {
  private handle: BrowserHandle | undefined;
  private starting: Promise<BrowserHandle> | undefined;
  private readonly opening = new Map<string, Promise<BrowserSession>>();
  private readonly sessions = new Map<string, BrowserSession>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** `/browser connect` (a URL) or `/browser disconnect` (""): overrides browser.cdp_url. */
  private cdpOverride: string | undefined;
  private userAgent: string | undefined;

  constructor(private readonly options: BrowserManagerOptions) {}

  get settings(): BrowserSettings {
    return this.options.settings;
  }

  get sideModel(): SideModelCall | undefined {
    return this.options.sideModel;
  }

  private get cdpUrl(): string {
    return this.cdpOverride ?? this.options.settings.cdpUrl;
  }

  /** Why browser tools cannot run (no Chromium, nothing to attach to); undefined when they can. */
  unavailable(): string | undefined {
    return unavailableReason({ ...this.options.settings, cdpUrl: this.cdpUrl });
  }

  private async browser(): Promise<Browser> {
    if (this.handle?.browser.isConnected()) return this.handle.browser;
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return (await this.starting).browser;
  }

  private async start(): Promise<BrowserHandle> {
    // Launching, the page session and the URL guard load with the first browser call.
    const { connectChrome, launchChromium } = await import("./launch.js");
    const cdp = this.cdpUrl;
    let handle: BrowserHandle;
    if (cdp) {
      handle = await connectChrome(cdp);
    } else {
      const executablePath = findChromium(this.options.settings.executablePath);
      if (!executablePath) throw new Error(this.unavailable());
      handle = await launchChromium({
        executablePath,
        ...(this.options.extraArgs ? { extraArgs: this.options.extraArgs } : {}),
      });
      // Sites turn away "HeadlessChrome"; the same browser under its ordinary name is let in.
      const cdpSession = await handle.browser.newBrowserCDPSession();
      const version = await cdpSession.send("Browser.getVersion");
      await cdpSession.detach().catch(() => undefined);
      this.userAgent = version.userAgent.replace("HeadlessChrome", "Chrome");
    }
    handle.browser.on("disconnected", () => {
      if (this.handle !== handle) return;
      // Chromium crashed or Chrome was closed: the next call starts over.
      this.handle = undefined;
      this.forgetAll();
    });
    this.handle = handle;
    return handle;
  }

  private checker(scope: SessionScope): UrlChecker {
    const guard = guardOptionsFromSecurity(scope.config.security, scope.home);
    const resolve = this.options.resolve;
    // Every request a page makes is judged: one lookup per host, not per request (verdict-cache.ts).
    return cachedChecker(async (url) => {
      const { checkUrl } = await import("../web/url-guard.js");
      const r = await checkUrl(url, { ...guard, ...(resolve ? { resolve } : {}) });
      return r.ok ? { ok: true } : { ok: false, reason: r.reason };
    });
  }

  /** The task's session, opened on first use. A subagent's (`parent/child` id) starts with its parent's cookies. */
  session(scope: SessionScope): Promise<BrowserSession> {
    const open = this.sessions.get(scope.taskId);
    if (open) return Promise.resolve(open);
    let pending = this.opening.get(scope.taskId);
    if (!pending) {
      pending = this.open(scope).finally(() => this.opening.delete(scope.taskId));
      this.opening.set(scope.taskId, pending);
    }
    return pending;
  }

  private async open(scope: SessionScope): Promise<BrowserSession> {
    const browser = await this.browser();
    const slash = scope.taskId.lastIndexOf("/");
    const parent = slash > 0 ? this.sessions.get(scope.taskId.slice(0, slash)) : undefined;
    const storageState = parent ? await parent.context.storageState().catch(() => undefined) : undefined;
    const { BrowserSession } = await import("./session.js");
    const session = await BrowserSession.open(browser, {
      check: this.checker(scope),
      downloadsDir: join(scope.workDir, "downloads"),
      ...(this.handle?.kind === "launched" && this.userAgent ? { userAgent: this.userAgent } : {}),
      ...(storageState ? { storageState } : {}),
    });
    session.context.on("close", () => {
      if (this.sessions.get(scope.taskId) === session) this.sessions.delete(scope.taskId);
    });
    this.sessions.set(scope.taskId, session);
    this.touch(scope.taskId);
    return session;
  }

  /** The task's session when it is open (never opens one). */
  existing(taskId: string): BrowserSession | undefined {
    return this.sessions.get(taskId);
  }

  /** Restarts the task's inactivity timer. */
  touch(taskId: string): void {
    clearTimeout(this.timers.get(taskId));
    const timer = setTimeout(() => void this.expire(taskId), this.options.settings.inactivityTimeoutMs);
    // An idle timer never keeps Hermes running.
    timer.unref();
    this.timers.set(taskId, timer);
  }

  private async expire(taskId: string): Promise<void> {
    const session = this.sessions.get(taskId);
    if (session && session.busy > 0) return this.touch(taskId);
    await this.release(taskId);
  }

  /** Closes the task's context; the browser too when it was the last one. Never throws. */
  async release(taskId: string): Promise<void> {
    clearTimeout(this.timers.get(taskId));
    this.timers.delete(taskId);
    const session = this.sessions.get(taskId) ?? (await this.opening.get(taskId)?.catch(() => undefined));
    this.sessions.delete(taskId);
    await session?.close();
    if (this.sessions.size === 0 && this.opening.size === 0) await this.stopBrowser();
  }

  private async stopBrowser(): Promise<void> {
    const handle = this.handle ?? (await this.starting?.catch(() => undefined));
    this.handle = undefined;
    await handle?.close();
  }

  private forgetAll(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.sessions.clear();
  }

  /** Closes every session and the browser (exit, /browser connect and disconnect). Never throws. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.opening.values()].map((p) => p.catch(() => undefined)));
    const sessions = [...this.sessions.values()];
    this.forgetAll();
    await Promise.all(sessions.map((s) => s.close()));
    await this.stopBrowser();
  }

  /** Attaches to a running Chrome from now on (checked at once). Throws when it cannot be reached. */
  async connect(cdpUrl: string): Promise<void> {
    await this.closeAll();
    const before = this.cdpOverride;
    this.cdpOverride = cdpUrl;
    try {
      await this.browser();
    } catch (err) {
      this.cdpOverride = before;
      throw err;
    }
  }

  /** Leaves an attached Chrome (it keeps running) and goes back to launching Chromium. */
  async disconnect(): Promise<void> {
    await this.closeAll();
    this.cdpOverride = "";
  }

  status(): BrowserStatus {
    const cdp = this.cdpUrl;
    return {
      mode: cdp ? "cdp" : "launch",
      target: cdp || findChromium(this.options.settings.executablePath),
      running: this.handle?.browser.isConnected() ?? false,
      ...(this.handle?.userDataDir ? { userDataDir: this.handle.userDataDir } : {}),
      sessions: [...this.sessions].map(([taskId, s]) => ({ taskId, url: s.url })),
    };
  }
}
