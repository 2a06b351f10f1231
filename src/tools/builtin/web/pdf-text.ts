/**
 * PDF bytes to text with unpdf (a pure-JS PDF.js build: no native code, no browser). Loaded on
 * first use only.
 */

export interface PdfText {
  title: string;
  text: string;
  pages: number;
}

/** Throws when the bytes are not a readable PDF (the caller reports it for that URL). */
export async function pdfToText(bytes: Uint8Array): Promise<PdfText> {
  const { getDocumentProxy, extractText, getMeta } = await import("unpdf");
  // PDF.js takes ownership of the buffer it is given; a copy keeps the caller's intact.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    let title = "";
    try {
      const meta = await getMeta(pdf);
      const info = meta.info as Record<string, unknown> | undefined;
      if (typeof info?.Title === "string") title = info.Title.trim();
    } catch {
      // metadata is optional
    }
    const pages = text.map((t) => t.replace(/[ \t]+\n/g, "\n").trim());
    const joined =
      pages.length > 1 ? pages.map((t, i) => `[page ${i + 1}]\n${t}`).join("\n\n") : (pages[0] ?? "");
    return { title, text: joined, pages: totalPages };
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}
