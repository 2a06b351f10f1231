/** Builds a small, valid PDF (Helvetica text, one content stream per page) with a correct xref table. */
export function makePdf(pages: readonly string[][], title: string): Buffer {
  const esc = (s: string): string => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1 catalog, 2 page tree, 3 font, 4 info; pages and their streams follow.
  let next = 5;
  const pageObjects: Array<[number, string]> = [];
  for (const lines of pages) {
    const pageId = next++;
    const streamId = next++;
    pageIds.push(pageId);
    const text = lines.map((l, i) => `${i === 0 ? "" : "0 -18 Td "}(${esc(l)}) Tj`).join("\n");
    const stream = `BT /F1 12 Tf 72 720 Td\n${text}\nET`;
    pageObjects.push([
      pageId,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${streamId} 0 R >>`,
    ]);
    pageObjects.push([
      streamId,
      `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
    ]);
  }
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageIds.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  objects[4] = `<< /Title (${esc(title)}) /Producer (hermes tests) >>`;
  for (const [id, body] of pageObjects) objects[id] = body;

  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, "latin1");
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
