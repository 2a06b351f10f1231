/**
 * HTML page to markdown: the main content picked by Mozilla Readability (on a linkedom DOM),
 * converted by Turndown. All three libraries load on first use only.
 */
import type { DomDocument, DomElement } from "./dom.js";

export interface PageMarkdown {
  title: string;
  /** The author line Readability found, if any. */
  byline?: string;
  markdown: string;
  /** Readability found an article; false means the cleaned body was used. */
  article: boolean;
}

// Readability's own threshold: below this many characters it tends to return a fragment.
const MIN_ARTICLE_CHARS = 200;
const CHROME_SELECTORS =
  "script,style,noscript,template,iframe,svg,canvas,nav,header,footer,aside,form,button,dialog,[role=navigation],[aria-hidden=true]";

interface Libraries {
  parseHTML: (html: string) => { document: DomDocument };
  Readability: new (
    doc: DomDocument,
    opts?: { charThreshold?: number },
  ) => {
    parse(): {
      title?: string | null;
      byline?: string | null;
      content?: string | null;
      textContent?: string | null;
    } | null;
  };
  turndown: (html: string) => string;
}

let libraries: Promise<Libraries> | undefined;

function loadLibraries(): Promise<Libraries> {
  libraries ??= (async () => {
    const [{ parseHTML }, readability, { default: TurndownService }] = await Promise.all([
      import("linkedom"),
      import("@mozilla/readability"),
      import("turndown"),
    ]);
    // A CommonJS package: Node names its exports, a bundle may only give `default`.
    const { Readability } = readability.Readability
      ? readability
      : (readability as unknown as { default: typeof readability }).default;
    const service = new TurndownService({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
      emDelimiter: "_",
    });
    service.remove(["script", "style", "noscript", "template", "iframe", "canvas"]);
    // Inline images as data URLs can be megabytes of base64; keep their alt text only.
    service.addRule("dataImages", {
      filter: (node) => node.nodeName === "IMG" && (node.getAttribute("src") ?? "").startsWith("data:"),
      replacement: (_content, node) => {
        const alt = (node as unknown as DomElement).getAttribute("alt");
        return alt ? `[image: ${alt}]` : "";
      },
    });
    return {
      parseHTML: parseHTML as unknown as Libraries["parseHTML"],
      Readability: Readability as unknown as Libraries["Readability"],
      turndown: (html: string) => service.turndown(html),
    };
  })();
  return libraries;
}

/** Never throws on odd HTML: the worst case is the page's text with its chrome removed. */
export async function htmlToMarkdown(html: string, pageUrl: string): Promise<PageMarkdown> {
  const lib = await loadLibraries();
  const { document } = lib.parseHTML(html);
  const fallbackTitle = document.querySelector("title")?.textContent?.trim() ?? "";
  absolutizeLinks(document, pageUrl);
  // Readability mutates the DOM it reads, so the fallback works on a fresh parse.
  let parsed: ReturnType<InstanceType<Libraries["Readability"]>["parse"]> = null;
  try {
    parsed = new lib.Readability(document).parse();
  } catch {
    parsed = null;
  }
  const articleText = parsed?.textContent?.trim() ?? "";
  if (parsed?.content && articleText.length >= MIN_ARTICLE_CHARS) {
    return {
      title: parsed.title?.trim() || fallbackTitle,
      ...(parsed.byline?.trim() ? { byline: parsed.byline.trim() } : {}),
      markdown: tidy(lib.turndown(parsed.content)),
      article: true,
    };
  }
  const fresh = lib.parseHTML(html).document;
  absolutizeLinks(fresh, pageUrl);
  for (const el of fresh.querySelectorAll(CHROME_SELECTORS)) el.remove();
  const body = fresh.querySelector("body")?.innerHTML ?? fresh.toString();
  return { title: fallbackTitle, markdown: tidy(lib.turndown(body)), article: false };
}

/** Links and images made absolute against the page (or its `<base href>`), so the model can follow them. */
function absolutizeLinks(document: DomDocument, pageUrl: string): void {
  let base = pageUrl;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      // a broken <base> is ignored, as browsers do
    }
  }
  for (const [selector, attr] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const el of document.querySelectorAll(selector)) {
      const value = el.getAttribute(attr);
      if (!value || value.startsWith("#") || /^(data|javascript|mailto|tel):/i.test(value)) continue;
      try {
        el.setAttribute(attr, new URL(value, base).href);
      } catch {
        // leave what cannot be parsed
      }
    }
  }
}

/** Collapses the blank-line runs Turndown leaves where removed elements were. */
function tidy(markdown: string): string {
  return markdown
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
