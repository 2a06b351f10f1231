/**
 * The SSRF guard for the browser: every document a page loads (main frame, iframes, popups) is
 * checked before it is requested, and so is every redirect hop. Playwright's routing sees each
 * page's first request but lets redirects through unseen, so each page also gets a DevTools
 * `Fetch` interceptor for documents, which is paused on every hop. A refused document is answered
 * with a short page saying why, so the model reads the reason where the content would have been.
 */
import type { BrowserContext, CDPSession, Page } from "playwright-core";

export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/** Judges one URL (`checkUrl` with the session's security settings). Never throws. */
export type UrlChecker = (url: string) => Promise<UrlVerdict>;

/** Told about each refusal (the tool result reports it). */
export type RefusalSink = (url: string, reason: string) => void;

/** Schemes that never reach the network; everything else must pass the checker. */
const LOCAL_SCHEMES = new Set(["about:", "data:", "blob:", "chrome-error:"]);

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** The page shown instead of a refused document. */
export function refusalPage(url: string, reason: string): string {
  return `<!doctype html><title>Blocked</title><h1>Blocked by Hermes</h1><p>${escapeHtml(url)} was not loaded: ${escapeHtml(reason)}.</p>`;
}

async function verdict(url: string, check: UrlChecker): Promise<UrlVerdict> {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (LOCAL_SCHEMES.has(scheme)) return { ok: true };
  return check(url);
}

/** Checks the first request of every document in the context (popups included). */
export async function guardContext(
  context: BrowserContext,
  check: UrlChecker,
  refused: RefusalSink,
): Promise<void> {
  await context.route("**/*", async (route, request) => {
    if (request.resourceType() !== "document") return route.continue().catch(() => undefined);
    const v = await verdict(request.url(), check);
    if (v.ok) return route.continue().catch(() => undefined);
    refused(request.url(), v.reason);
    await route
      .fulfill({ status: 403, contentType: "text/html", body: refusalPage(request.url(), v.reason) })
      .catch(() => undefined);
  });
}

/** Checks every redirect hop of the page's documents. Returns the DevTools session (detach to stop). */
export async function guardRedirects(
  page: Page,
  check: UrlChecker,
  refused: RefusalSink,
): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  cdp.on("Fetch.requestPaused", (event) => {
    const { requestId, request } = event;
    const go = async () => {
      // First requests were judged by the context route already; only redirect hops are new here.
      const v = event.redirectedRequestId ? await verdict(request.url, check) : ({ ok: true } as const);
      if (v.ok) return cdp.send("Fetch.continueRequest", { requestId });
      refused(request.url, v.reason);
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
  await cdp.send("Fetch.enable", { patterns: [{ resourceType: "Document", requestStage: "Request" }] });
  return cdp;
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
