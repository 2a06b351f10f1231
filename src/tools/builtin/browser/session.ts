/**
 * One task's browser: an isolated context (cookies, storage) with the page the tools act on, its
 * refs and what it reported. Calls on one session run one at a time, in order.
 */
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { guardContext, guardRedirects, RefusalLog, SAME_TAB_SCRIPT, type UrlChecker } from "./guard.js";
import { describeDialog, PageWatch } from "./page-watch.js";
import { type RefEntry, RefTable, renderSnapshot } from "./snapshot.js";

const NAVIGATION_TIMEOUT_MS = 30_000;
const ACTION_TIMEOUT_MS = 10_000;
/** After the document is parsed, how long navigation waits for images and styles (best effort). */
const LOAD_WAIT_MS = 3000;

export interface SessionOptions {
  check: UrlChecker;
  /** Where downloads are saved. */
  downloadsDir: string;
  /** Sent instead of Chromium's headless user agent (launched browsers). */
  userAgent?: string;
  /** Cookies and storage to start from (a subagent starts from its parent's). */
  storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>;
}

/** A failure the model can act on (the tool turns it into `{"error": ...}`). */
export class BrowserActionError extends Error {}

/** The first line of a Playwright error, without its call log. */
export function briefError(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split("\n")[0] ?? text).replace(/^\w+\.\w+: /, "").trim();
}

export interface PageSnapshot {
  url: string;
  title: string;
  text: string;
  refs: number;
  boxes: Array<{ ref: number; x: number; y: number; width: number; height: number }>;
  /** The page is blocked on this JavaScript dialog (then `text` only says so). */
  dialog?: Record<string, string>;
}

export class BrowserSession {
  readonly refs = new RefTable();
  private page!: Page;
  /** The page's DevTools session (the redirect guard's). */
  private cdp!: CDPSession;
  private watch!: PageWatch;
  private readonly adopted = new WeakMap<Page, Promise<void>>();
  /** Open pages, oldest first, with what watches them. */
  private readonly pages = new Map<Page, { watch: PageWatch; cdp: CDPSession }>();
  /** What the guard refused since the last call reported it. */
  private readonly refused = new RefusalLog();
  private queue: Promise<unknown> = Promise.resolve();
  /** Calls running or waiting (the inactivity timer leaves busy sessions alone). */
  busy = 0;

  private constructor(
    readonly context: BrowserContext,
    private readonly options: SessionOptions,
  ) {}

  /** A new context with the guard installed and one empty page. */
  static async open(browser: Browser, options: SessionOptions): Promise<BrowserSession> {
    const context = await browser.newContext({
      acceptDownloads: true,
      // Requests a service worker answers would bypass the guard's routing.
      serviceWorkers: "block",
      viewport: { width: 1280, height: 800 },
      ...(options.userAgent ? { userAgent: options.userAgent } : {}),
      ...(options.storageState ? { storageState: options.storageState } : {}),
    });
    const session = new BrowserSession(context, options);
    try {
      await context.addInitScript(SAME_TAB_SCRIPT);
      await guardContext(context, options.check, session.noteRefusal);
      // Pages opened by the site (a popup the same-tab script missed) become the page acted on.
      context.on("page", (p) => void session.adopt(p).catch(() => undefined));
      await session.adopt(await context.newPage());
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
    return session;
  }

  private readonly noteRefusal = this.refused.note;

  /** Makes `page` the one acted on, once its redirect guard is in place. */
  private adopt(page: Page): Promise<void> {
    let adopting = this.adopted.get(page);
    if (!adopting) {
      adopting = this.install(page);
      this.adopted.set(page, adopting);
    }
    return adopting;
  }

  private async install(page: Page): Promise<void> {
    const cdp = await guardRedirects(page, this.options.check, this.noteRefusal);
    const watch = new PageWatch(page, this.options.downloadsDir, () => {
      if (this.page === page) this.refs.reset();
    });
    this.pages.set(page, { watch, cdp });
    this.use(page);
    // A renderer that crashed leaves a page nothing works on: close it (run() opens a fresh one).
    page.on("crash", () => void page.close().catch(() => undefined));
    page.on("close", () => {
      this.pages.delete(page);
      // A closed popup hands the session back to the page that opened it.
      const back = [...this.pages.keys()].at(-1);
      if (this.page === page && back) this.use(back);
    });
  }

  private use(page: Page): void {
    const state = this.pages.get(page)!;
    this.page = page;
    this.watch = state.watch;
    this.cdp = state.cdp;
    this.refs.reset();
  }

  /** Runs `fn` after every call queued before it. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    this.busy += 1;
    const go = async () => {
      // A crashed or closed last page is replaced by a blank one (the context and its cookies stay).
      if (this.page.isClosed()) await this.adopt(await this.context.newPage());
      return fn();
    };
    const next = this.queue.then(go, go).finally(() => {
      this.busy -= 1;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The guard's verdict on a URL, before anything is requested. */
  check(url: string): ReturnType<UrlChecker> {
    return this.options.check(url);
  }

  get url(): string {
    return this.page.url();
  }

  get pendingDialog(): Record<string, string> | undefined {
    return this.watch.dialog ? describeDialog(this.watch.dialog) : undefined;
  }

  /** Refusals and downloads since the last call, for the tool result. */
  takeReports(): { blocked?: Array<{ url: string; reason: string }>; downloads?: string[] } {
    const blocked = this.refused.take();
    const downloads = this.watch.takeDownloads();
    return {
      ...(blocked.length > 0 ? { blocked } : {}),
      ...(downloads.length > 0 ? { downloads } : {}),
    };
  }

  async navigate(url: string): Promise<{ dialog: boolean; status?: number }> {
    this.refused.take();
    const outcome = await this.watch
      .act(() => this.page.goto(url, { waitUntil: "domcontentloaded", timeout: NAVIGATION_TIMEOUT_MS }))
      .catch((err) => {
        throw new BrowserActionError(`Could not open ${url}: ${briefError(err)}`);
      });
    if (outcome.dialog) return { dialog: true };
    await this.page.waitForLoadState("load", { timeout: LOAD_WAIT_MS }).catch(() => undefined);
    const status = outcome.value?.status();
    return status === undefined ? { dialog: false } : { dialog: false, status };
  }

  /**
   * The page as text with refs; only the dialog when one blocks the page. `boxes` also measures
   * where each element is (a layout query per element: only annotated screenshots need it).
   */
  async snapshot(full: boolean, boxes = false): Promise<PageSnapshot> {
    const url = this.page.url();
    const dialog = this.pendingDialog;
    if (dialog) {
      const text = `[A JavaScript ${dialog.type} is open and blocks the page: ${JSON.stringify(dialog.message)}. Answer it with browser_dialog (accept or dismiss).]`;
      return { url, title: "", text, refs: 0, boxes: [], dialog };
    }
    const raw = await this.page
      .ariaSnapshot({ mode: "ai", boxes, timeout: NAVIGATION_TIMEOUT_MS })
      .catch((err) => {
        throw new BrowserActionError(`Could not read the page: ${briefError(err)}`);
      });
    const rendered = renderSnapshot(raw, this.refs, full);
    const title = await this.page.title().catch(() => "");
    return { url: this.page.url(), title, ...rendered };
  }

  private element(ref: string): RefEntry {
    const entry = this.refs.resolve(ref);
    if (entry) return entry;
    throw new BrowserActionError(
      this.refs.size === 0
        ? `Unknown ref ${ref}: this page has no refs yet. Take a snapshot (browser_snapshot) first.`
        : `Unknown ref ${ref}: refs come from the latest snapshot of this page (@e1 to @e${this.refs.size}).`,
    );
  }

  /** Runs an action on a ref, turning "element gone" into a message that says what to do. */
  private async onElement<T>(ref: string, action: (entry: RefEntry) => Promise<T>) {
    const entry = this.element(ref);
    try {
      return await this.watch.act(() => action(entry));
    } catch (err) {
      if (err instanceof BrowserActionError) throw err;
      const gone = /not found|waiting for|detached|Timeout/i.test(briefError(err));
      throw new BrowserActionError(
        gone
          ? `${ref} (${entry.label}) cannot be used now: ${briefError(err)}. Take a new snapshot and use a current ref.`
          : `${ref} (${entry.label}): ${briefError(err)}`,
      );
    }
  }

  async click(ref: string): Promise<{ dialog: boolean; element: string }> {
    const { label } = this.element(ref);
    const r = await this.onElement(ref, (e) =>
      this.page.getByRef(e.playwrightRef).click({ timeout: ACTION_TIMEOUT_MS }),
    );
    return { dialog: r.dialog, element: label };
  }

  /** Replaces the field's text with `text`; a native dropdown selects the option with that label. */
  async type(ref: string, text: string): Promise<{ dialog: boolean; element: string }> {
    const { label } = this.element(ref);
    const r = await this.onElement(ref, async (e) => {
      const loc = this.page.getByRef(e.playwrightRef);
      // A native <select> has option children; an editable combobox (an input) has none and is typed into.
      const options =
        e.role === "combobox" || e.role === "listbox"
          ? await loc.evaluate((el: { tagName: string; options?: ArrayLike<{ label: string }> }) =>
              el.tagName === "SELECT" && el.options ? Array.from(el.options, (o) => o.label) : [],
            )
          : [];
      if (options.length === 0) return loc.fill(text, { timeout: ACTION_TIMEOUT_MS });
      const wanted = text.trim().toLowerCase();
      const label = options.find((o) => o.trim().toLowerCase() === wanted);
      const picked = await loc
        .selectOption(label === undefined ? text : { label }, {
          timeout: label === undefined ? 1000 : ACTION_TIMEOUT_MS,
        })
        .catch(() => undefined);
      if (!picked)
        throw new BrowserActionError(
          `${ref} (${e.label}) has no option "${text}". Its options: ${options.map((o) => o.trim()).join(", ")}.`,
        );
    });
    return { dialog: r.dialog, element: label };
  }

  async press(key: string): Promise<{ dialog: boolean }> {
    // Pressing through the focused element's locator waits for a navigation the key starts (Enter
    // in a form); focus inside a frame, or nowhere, takes the plain keyboard.
    const focused = this.page.locator(":focus:not(iframe, frame)");
    const press = async () => {
      if ((await focused.count()) === 1) await focused.press(key, { timeout: ACTION_TIMEOUT_MS });
      else await this.page.keyboard.press(key);
    };
    const r = await this.watch.act(press).catch((err) => {
      throw new BrowserActionError(
        `Could not press '${key}': ${briefError(err)}. Use key names like Enter, Tab, Escape, ArrowDown, Control+a.`,
      );
    });
    return { dialog: r.dialog };
  }

  async scroll(direction: "up" | "down"): Promise<{ moved: number; position: number; max: number }> {
    return (await this.page.evaluate(`(${SCROLL_SCRIPT})(${JSON.stringify(direction)})`)) as {
      moved: number;
      position: number;
      max: number;
    };
  }

  async back(): Promise<{ dialog: boolean; moved: boolean }> {
    const { currentIndex, entries } = await this.cdp.send("Page.getNavigationHistory");
    const previous = entries[currentIndex - 1];
    // The blank page every tab starts on is not a page to go back to.
    if (!previous || previous.url === "about:blank") return { dialog: false, moved: false };
    const r = await this.watch
      .act(() => this.page.goBack({ waitUntil: "domcontentloaded", timeout: NAVIGATION_TIMEOUT_MS }))
      .catch((err) => {
        throw new BrowserActionError(`Could not go back: ${briefError(err)}`);
      });
    return { dialog: r.dialog, moved: true };
  }

  async images(): Promise<Array<{ src: string; alt: string; width: number; height: number }>> {
    return (await this.page.evaluate(`(${IMAGES_SCRIPT})()`)) as Array<{
      src: string;
      alt: string;
      width: number;
      height: number;
    }>;
  }

  /** Console lines and uncaught errors so far (emptied with `clear`). */
  consoleLog(clear: boolean): { messages: Array<{ type: string; text: string }>; errors: string[] } {
    const messages = [...this.watch.console];
    const errors = this.watch.errors.map((e) => e.text);
    if (clear) {
      this.watch.console.length = 0;
      this.watch.errors.length = 0;
    }
    return { messages, errors };
  }

  /** Evaluates a JavaScript expression in the page; its value as JSON-compatible data. */
  async evaluate(expression: string): Promise<unknown> {
    if (this.watch.dialog)
      throw new BrowserActionError("A JavaScript dialog blocks the page: answer it first.");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no result after ${ACTION_TIMEOUT_MS / 1000} s`)),
        ACTION_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([this.page.evaluate(expression), timeout]);
    } catch (err) {
      throw new BrowserActionError(`The expression failed: ${briefError(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Accepts or dismisses the open dialog, then lets what it blocked finish. */
  async answerDialog(
    action: "accept" | "dismiss",
    promptText: string | undefined,
  ): Promise<{ answered: Record<string, string>; dialog: boolean }> {
    const dialog = this.watch.dialog;
    if (!dialog) throw new BrowserActionError("No JavaScript dialog is open on this page.");
    const answered = describeDialog(dialog);
    this.watch.dialog = undefined;
    const r = await this.watch.act(async () => {
      if (action === "accept") await dialog.accept(promptText);
      else await dialog.dismiss();
      await this.watch.settle();
    });
    return { answered, dialog: r.dialog };
  }

  /** A JPEG of the viewport. */
  screenshot(): Promise<Buffer> {
    return this.page.screenshot({ type: "jpeg", quality: 75, timeout: NAVIGATION_TIMEOUT_MS });
  }

  /** Runs a script in the page (overlays for annotated screenshots). */
  async inPage(script: string): Promise<void> {
    await this.page.evaluate(script);
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
  }
}

/** Scrolls the document, or the element the page scrolls in, by most of a screen. */
const SCROLL_SCRIPT = `(direction) => {
  const fits = (el) => el && el.scrollHeight > el.clientHeight + 1;
  let target = document.scrollingElement || document.documentElement;
  if (!fits(target) || getComputedStyle(document.body).overflowY === "hidden") {
    let el = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
    while (el && el !== document.body && el !== document.documentElement) {
      const o = getComputedStyle(el).overflowY;
      if ((o === "auto" || o === "scroll") && fits(el)) { target = el; break; }
      el = el.parentElement;
    }
  }
  const before = target.scrollTop;
  const step = Math.round((target === document.scrollingElement ? innerHeight : target.clientHeight) * 0.8);
  target.scrollBy({ top: direction === "up" ? -step : step, behavior: "instant" });
  return { moved: Math.round(target.scrollTop - before), position: Math.round(target.scrollTop), max: Math.max(0, target.scrollHeight - target.clientHeight) };
}`;

/** Images of the page: where they come from and what they show (inline data URLs left out). */
const IMAGES_SCRIPT = `() => Array.from(document.images)
  .map((i) => ({ src: i.currentSrc || i.src, alt: (i.alt || "").trim(), width: i.naturalWidth, height: i.naturalHeight }))
  .filter((i) => i.src && !i.src.startsWith("data:"))
  .slice(0, 200)`;
