/**
 * What a page does on its own between tool calls: console output and uncaught errors, JavaScript
 * dialogs waiting for an answer, navigations started by a click, and downloads.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import type { Dialog, Download, Page, Request } from "playwright-core";

export interface ConsoleEntry {
  type: string;
  text: string;
}

/** Console lines kept per page (oldest dropped first). */
const CONSOLE_LIMIT = 300;
/** How long an action waits for the navigation it started to show a document. */
const NAVIGATION_WAIT_MS = 10_000;

const withoutHash = (url: string) => url.replace(/#.*$/, "");

/** A file name safe to write in the downloads folder, not overwriting an earlier download. */
function freeName(dir: string, suggested: string): string {
  const clean =
    basename(suggested)
      .replace(/[^\w.\- ]+/g, "_")
      .slice(0, 120) || "download";
  const ext = extname(clean);
  const stem = clean.slice(0, clean.length - ext.length);
  let name = clean;
  for (let i = 1; existsSync(join(dir, name)); i++) name = `${stem}-${i}${ext}`;
  return name;
}

export class PageWatch {
  readonly console: ConsoleEntry[] = [];
  readonly errors: ConsoleEntry[] = [];
  /** The dialog the page is blocked on, if any. */
  dialog: Dialog | undefined;
  /** Files saved since the last tool result reported them. */
  readonly downloads: string[] = [];
  private loads = 0;
  private readonly waiters = new Set<() => void>();
  private navRequest: Request | undefined;
  private readonly pendingDownloads = new Set<Promise<void>>();
  /** The action a dialog interrupted, finishing once the dialog is answered. */
  private blocked: Promise<void> | undefined;

  constructor(
    readonly page: Page,
    private readonly downloadsDir: string,
    /** Called when the main frame shows a new document (refs of the old one are void). */
    onNewDocument: () => void,
  ) {
    page.on("console", (m) => this.push(this.console, { type: m.type(), text: m.text() }));
    page.on("pageerror", (e) => this.push(this.errors, { type: "error", text: e.message }));
    page.on("dialog", (d) => {
      this.dialog = d;
      this.wake();
    });
    let documentRequested = false;
    page.on("request", (r) => {
      if (!r.isNavigationRequest() || r.frame() !== page.mainFrame()) return;
      this.navRequest = r;
      documentRequested = true;
    });
    page.on("domcontentloaded", () => {
      this.loads += 1;
      this.wake();
    });
    let shownUrl = withoutHash(page.url());
    page.on("framenavigated", (f) => {
      if (f !== page.mainFrame()) return;
      // A new document (or an app's route change) means new elements: old refs must not point
      // into it. A jump to an anchor on the same page keeps them.
      const url = withoutHash(f.url());
      if (url !== shownUrl || documentRequested) onNewDocument();
      shownUrl = url;
      documentRequested = false;
      this.wake();
    });
    page.on("download", (d) => this.save(d));
    page.on("close", () => this.wake());
  }

  private push(list: ConsoleEntry[], entry: ConsoleEntry): void {
    list.push(entry);
    if (list.length > CONSOLE_LIMIT) list.splice(0, list.length - CONSOLE_LIMIT);
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private save(download: Download): void {
    const job = (async () => {
      await mkdir(this.downloadsDir, { recursive: true });
      const path = join(this.downloadsDir, freeName(this.downloadsDir, download.suggestedFilename()));
      await download.saveAs(path);
      this.downloads.push(path);
    })().catch(() => undefined);
    this.pendingDownloads.add(job);
    void job.finally(() => this.pendingDownloads.delete(job));
    this.wake();
  }

  /** Resolves when `done()` holds, checked on every page event, or after `ms`. */
  private until(done: () => boolean, ms: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, ms);
      this.waiters.add(check);
    });
  }

  /**
   * Runs a page action and waits for what it set off: a document it navigated to (up to 10 s), a
   * download it started. Returns early, with `dialog`, when the action opened a JavaScript dialog:
   * the page is blocked until browser_dialog answers, and the action finishes after that.
   */
  async act<T>(action: () => Promise<T>): Promise<{ value?: T; dialog: boolean }> {
    const loadsBefore = this.loads;
    this.navRequest = undefined;
    const run = action();
    const outcome = await Promise.race([
      run.then((value) => ({ value, dialog: false })),
      new Promise<{ dialog: true }>((resolve) => {
        const check = () => {
          if (this.dialog) {
            this.waiters.delete(check);
            resolve({ dialog: true });
          }
        };
        this.waiters.add(check);
        check();
        void run.finally(() => this.waiters.delete(check)).catch(() => undefined);
      }),
    ]);
    if (outcome.dialog) {
      // The action finishes (or fails) once the dialog is answered: `settle` waits for it then.
      this.blocked = run.then(
        () => undefined,
        () => undefined,
      );
      return { dialog: true };
    }
    const nav = this.navRequest as Request | undefined;
    if (nav) {
      let failed = false;
      void nav.response().then(
        (r) => {
          // No document follows a failed request, a 204, or a file download.
          if (!r || r.status() === 204 || r.status() === 205) failed = true;
          this.wake();
        },
        () => {
          failed = true;
          this.wake();
        },
      );
      await this.until(
        () =>
          this.loads > loadsBefore ||
          failed ||
          this.dialog !== undefined ||
          this.pendingDownloads.size > 0 ||
          this.page.isClosed(),
        NAVIGATION_WAIT_MS,
      );
    }
    await Promise.all(this.pendingDownloads);
    return { value: (outcome as { value: T }).value, dialog: false };
  }

  /** After a dialog was answered: waits for the action it interrupted, or for the next dialog. */
  async settle(): Promise<void> {
    const blocked = this.blocked;
    this.blocked = undefined;
    if (!blocked) return;
    let done = false;
    void blocked.then(() => {
      done = true;
      this.wake();
    });
    await this.until(() => done || this.dialog !== undefined, NAVIGATION_WAIT_MS);
  }

  /** Downloads saved since the last call (reported once). */
  takeDownloads(): string[] {
    return this.downloads.splice(0);
  }
}

/** The dialog as the model reads it. */
export function describeDialog(d: Dialog): Record<string, string> {
  const out: Record<string, string> = { type: d.type(), message: d.message() };
  if (d.type() === "prompt") out.default_value = d.defaultValue();
  return out;
}
