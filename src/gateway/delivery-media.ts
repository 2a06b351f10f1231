/**
 * Files in an answer: a tool that produced a file tells the model to put a line `MEDIA:<path>` in its
 * answer; the gateway takes such lines out of the text and sends the files themselves. Lines inside
 * code blocks are examples, not files, and stay.
 */

const MEDIA_LINE = /^\s*MEDIA:\s*(.+?)\s*$/;
const FENCE = /^ {0,3}```/;

/** Strips quotes or backticks the model may wrap a path in. */
function cleanPath(raw: string): string {
  return raw.replace(/^[`'"<]+|[`'">]+$/g, "").trim();
}

/** The answer without its MEDIA lines (ends trimmed) and the paths they named, in order. */
export function extractMedia(text: string): { text: string; files: string[] } {
  if (!text.includes("MEDIA:")) return { text, files: [] };
  const files: string[] = [];
  const kept: string[] = [];
  let inCode = false;
  for (const line of text.split("\n")) {
    if (FENCE.test(line)) inCode = !inCode;
    const m = inCode ? null : MEDIA_LINE.exec(line);
    const path = m ? cleanPath(m[1]!) : "";
    if (path) files.push(path);
    else kept.push(line);
  }
  return { text: kept.join("\n").trim(), files };
}

/** A one-line note of a tool call for a streamed preview: "⚙ terminal: ls -la", at most `max` characters. */
export function progressLine(name: string, args: Record<string, unknown>, max = 80): string {
  const preferred = ["command", "path", "query", "url", "code", "goal", "name", "action"];
  const key =
    preferred.find((k) => typeof args[k] === "string") ??
    Object.keys(args).find((k) => typeof args[k] === "string");
  const detail = key ? String(args[key]) : Object.keys(args).length > 0 ? JSON.stringify(args) : "";
  const line = (detail ? `⚙ ${name}: ${detail}` : `⚙ ${name}`).replace(/\s+/g, " ").trim();
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("")}…`;
}
