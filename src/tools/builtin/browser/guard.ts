/**
 * The SSRF guard for the browser: every request a page makes (documents, iframes, popups, images,
 * scripts, styles, fetch/XHR, media, fonts, workers' fetches) is checked before it is sent, and so is
 * every redirect hop. A refused document is answered with a short page saying why, so the model reads
 * the reason where the content would have been; a refused sub-resource fails as blocked by the client.
 *
 * What it sees: Playwright's context routing sees the first request of everything, OOPIFs and
 * dedicated workers included, but lets redirects through unseen; so each page, and each
 * out-of-process iframe once Playwright reports it, also gets a DevTools `Fetch` interceptor that is
 * paused on every hop. WebSockets pass neither: the page's `WebSocket` is replaced (Playwright's WebSocket
 * routing) and judged on connect, but a dedicated worker's WebSocket is not seen. A cross-site
 * iframe's interceptor goes on with its first request, so the redirect hops of the requests it
 * starts before that (its first images, scripts and fetches) are not seen either.
 *
 * What it cannot see: Chromium resolves host names itself. The guard judges the addresses its own
 * lookup returns (cached per host, see verdict-cache.ts); a name whose answer changes between that
 * lookup and Chromium's (DNS rebinding, a short TTL) can still reach an address the guard never saw.
 * Pinning Chromium to the judged addresses would take a proxy in front of it.
 */
import type { BrowserContext, CDPSession, Frame, Page, Request } from "playwright-core";

export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/** Judges one URL (`checkUrl` with the session's security settings). Never throws. */
export type UrlChecker = (url: string) => Promise<UrlVerdict>;

/** Told about each refusal (the tool result reports it). */
export type RefusalSink = (url: string, reason: string) => void;

/** Schemes that never reach the network; everything else must pass the checker. */
const LOCAL_SCHEMES = new Set(["about:", "data:", "blob:", "chrome-error:"]);
/** WebSockets are judged as the HTTP request their handshake is. */
const HANDSHAKE_SCHEMES: Record<string, string> = { "ws:": "http:", "wss:": "https:" };

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** The page shown instead of a refused document. */
export function refusalPage(url: string, reason: string): string {
  return `<!doctype html><title>Blocked</title><h1>Blocked by Hermes</h1><p>${escapeHtml(url)} was not loaded: ${escapeHtml(reason)}.</p>`;
}

/**
 * Chromium asks every origin a page comes from for its icon, the refusal page's too: refused like
 * anything else, but not worth a line in the tool result.
 */
const unremarkable = (url: string) => url.endsWith("/favicon.ico");

async function verdict(url: string, check: UrlChecker): Promise<UrlVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (LOCAL_SCHEMES.has(parsed.protocol)) return { ok: true };
  const http = HANDSHAKE_SCHEMES[parsed.protocol];
  if (http) {
    parsed.protocol = http;
    return check(parsed.href);
  }
  return check(url);
}

/**
 * The refusals not yet reported, each URL once: a page polling a refused address, or showing the
 * same refused image twenty times, adds one line to the tool result, and at most `limit` lines.
 */
export class RefusalLog {
  private readonly pending = new Map<string, string>();

  constructor(private readonly limit = 20) {}

  readonly note: RefusalSink = (url, reason) => {
    if (this.pending.size < this.limit && !this.pending.has(url)) this.pending.set(url, reason);
  };

  /** The refusals since the last call, oldest first. */
  take(): Array<{ url: string; reason: string }> {
    const out = [...this.pending].map(([url, reason]) => ({ url, reason }));
    this.pending.clear();
    return out;
  }
}

/** Checks the first request of everything the context loads (popups, workers and OOPIFs included). */
export async function guardContext(
  context: BrowserContext,
  check: UrlChecker,
  refused: RefusalSink,
): Promise<void> {
  await context.route("**/*", async (route, request) => {
    const v = await verdict(request.url(), check);
    if (v.ok) {
      // A cross-site iframe's interceptor goes on at its first request (see guardFrame).
      const frame = frameOf(request);
      if (frame && frame !== frame.page().mainFrame()) void guardFrame(frame, check, refused);
      return route.continue().catch(() => undefined);
    }
    if (!unremarkable(request.url())) refused(request.url(), v.reason);
    if (request.resourceType() !== "document") return route.abort("blockedbyclient").catch(() => undefined);
    await route
      .fulfill({ status: 403, contentType: "text/html", body: refusalPage(request.url(), v.reason) })
      .catch(() => undefined);
  });
  await context.routeWebSocket(
    () => true,
    async (ws) => {
      const v = await verdict(ws.url(), check);
      if (v.ok) {
        ws.connectToServer();
        return;
      }
      refused(ws.url(), v.reason);
      await ws.close({ code: 1008, reason: "blocked by Hermes" }).catch(() => undefined);
    },
  );
}

/** A DevTools `Fetch` interceptor on one target (a page or an OOPIF) that judges redirect hops. */
async function interceptHops(
  target: Page | Frame,
  context: BrowserContext,
  check: UrlChecker,
  refused: RefusalSink,
): Promise<CDPSession> {
  const cdp = await context.newCDPSession(target);
  cdp.on("Fetch.requestPaused", (event) => {
    const { requestId, request } = event;
    const go = async () => {
      // Every request, not only hops marked as redirects: the renderer follows a fetch()'s redirects
      // itself, and the hop arrives as a new request Playwright's routing takes for a redirect.
      // First requests are judged twice, from the same cached verdict.
      const v = await verdict(request.url, check);
      if (v.ok) return cdp.send("Fetch.continueRequest", { requestId });
      if (!unremarkable(request.url)) refused(request.url, v.reason);
      if (event.resourceType !== "Document")
        return cdp.send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" });
      return cdp.send("Fetch.fulfillRequest", {
        requestId,
        responseCode: 403,
        responseHeaders: [{ name: "content-type", value: "text/html; charset=utf-8" }],
        body: Buffer.from(refusalPage(request.url, v.reason)).toString("base64"),
      });
    };
    // The target may be gone (page closed mid-request): nothing left to answer.
    go().catch(() => undefined);
  });
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  return cdp;
}

/** Checks every redirect hop of the page's requests. Returns the DevTools session (detach to stop). */
export function guardRedirects(page: Page, check: UrlChecker, refused: RefusalSink): Promise<CDPSession> {
  return interceptHops(page, page.context(), check, refused);
}

/** Out-of-process iframes' interceptors, by frame and the origin of the document it holds. */
const frameGuards = new WeakMap<Frame, { origin: string; ready: Promise<unknown> }>();

/**
 * Gives a cross-site iframe, which runs in a process (a DevTools target) of its own, an interceptor.
 * Chromium fixes a request's interceptors when it starts, so requests already under way when this
 * one is enabled (the iframe's first sub-resources) keep unchecked redirect hops. A same-process
 * frame has none to install (the page's covers it), which is remembered too; a frame's new origin
 * may mean a new process.
 */
function guardFrame(frame: Frame, check: UrlChecker, refused: RefusalSink): Promise<unknown> {
  let origin: string;
  try {
    origin = new URL(frame.url()).origin;
  } catch {
    origin = frame.url();
  }
  const known = frameGuards.get(frame);
  if (known?.origin === origin) return known.ready;
  const ready = interceptHops(frame, frame.page().context(), check, refused).catch(() => undefined);
  frameGuards.set(frame, { origin, ready });
  return ready;
}

function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    // A worker's request has no frame: the page's interceptor sees it.
    return undefined;
  }
}

/**
 * Runs in every document before its own scripts: links, forms and window.open that would open a
 * new tab navigate the current one instead, so every navigation stays on the guarded page.
 */
export const SAME_TAB_SCRIPT = `(() => {
  const retarget = (el) => {
    if (!el) return;
    const base = document.querySelector("base[target]");
    const t = (el.getAttribute("target") || (base && base.getAttribute("target")) || "").toLowerCase();
    if (t && t !== "_self" && t !== "_parent" && t !== "_top") el.setAttribute("target", "_self");
  };
  document.addEventListener("click", (e) => {
    const t = e.target;
    retarget(t && t.closest ? t.closest("a[href], area[href]") : null);
  }, true);
  document.addEventListener("submit", (e) => retarget(e.target), true);
  const open = window.open;
  window.open = function (url, target, features) {
    if (url === undefined || url === "" || url === "about:blank") return open.call(window, url, target, features);
    location.assign(String(url));
    return window;
  };
})();`;
