/**
 * A fetched page to readable text, by what it is: HTML to markdown, PDF to text, text as is.
 */
import { decodeBody } from "./decode.js";
import type { FetchedPage } from "./fetch-page.js";
import { htmlToMarkdown } from "./html-to-markdown.js";
import { pdfToText } from "./pdf-text.js";

export type PageKind = "html" | "pdf" | "text";

export interface PageContent {
  kind: PageKind;
  title: string;
  byline?: string;
  text: string;
  /** PDF page count. */
  pages?: number;
}

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|xml|javascript|x-javascript|ecmascript|x-yaml|yaml|x-sh|csv|rss\+xml|atom\+xml)$)|\+(json|xml)$/;

/** What a page is, from its Content-Type, or from its first bytes when the header is vague. */
export function pageKind(contentType: string, body: Uint8Array): PageKind | undefined {
  const mime = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const head = Buffer.from(body.subarray(0, 512)).toString("latin1").trimStart().toLowerCase();
  if (mime === "application/pdf" || head.startsWith("%pdf-")) return "pdf";
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (!mime || mime === "application/octet-stream" || mime === "text/plain") {
    if (/^(<!doctype html|<html|<head|<body)/.test(head.replace(/^\ufeff/, ""))) return "html";
    if (!mime && looksBinary(body)) return undefined;
    if (mime === "application/octet-stream") return looksBinary(body) ? undefined : "text";
    return "text";
  }
  return TEXT_TYPES.test(mime) ? "text" : undefined;
}

/** Control bytes other than whitespace in the first kilobyte: images, archives, executables. */
function looksBinary(body: Uint8Array): boolean {
  const n = Math.min(body.length, 1024);
  for (let i = 0; i < n; i++) {
    const b = body[i] ?? 0;
    if (b < 9 || (b > 13 && b < 32 && b !== 27)) return true;
  }
  return false;
}

/** Throws with a message for the model when the page cannot be read as text. */
export async function pageContent(page: FetchedPage): Promise<PageContent> {
  const kind = pageKind(page.contentType, page.body);
  if (!kind) {
    const mime = page.contentType.split(";")[0]?.trim() || "unknown";
    throw new Error(`cannot read content of type ${mime} as text (only HTML, PDF and text pages)`);
  }
  if (kind === "pdf") {
    try {
      const pdf = await pdfToText(page.body);
      return { kind, title: pdf.title, text: pdf.text, pages: pdf.pages };
    } catch (err) {
      const why = page.capped ? "the PDF is larger than web.extract_max_bytes" : (err as Error).message;
      throw new Error(`could not read the PDF: ${why}`);
    }
  }
  const { text } = decodeBody(page.body, page.contentType);
  if (kind === "text") return { kind, title: "", text };
  const md = await htmlToMarkdown(text, page.url);
  return { kind, title: md.title, ...(md.byline ? { byline: md.byline } : {}), text: md.markdown };
}
