/**
 * What a tool hands back. A handler may return a plain string (the model reads it as is) or a
 * `ToolResult`: content blocks for the model, an explicit error flag, and details for front ends
 * that never reach the model. The registry normalises both to a `ToolResult`. Imports nothing from
 * the project: the registry, the root of the tool layer, depends on it.
 */

export interface TextBlock {
  type: "text";
  text: string;
}

/** An image for the model (a screenshot, a rendered chart): base64 data, no data-URL prefix. */
export interface ImageBlock {
  type: "image";
  mimeType: string;
  data: string;
}

/** A pointer to something the model may fetch or read later (a file, an MCP resource). */
export interface ResourceLinkBlock {
  type: "resource_link";
  uri: string;
  name?: string;
  mimeType?: string;
  description?: string;
}

export type ContentBlock = TextBlock | ImageBlock | ResourceLinkBlock;

/**
 * Structured facts about a run, for front ends and the loop's own bookkeeping; never sent to the
 * model. `exitCode` is the status of a command a tool ran (non-zero counts as a failure).
 */
export interface ToolResultDetails {
  exitCode?: number;
  [key: string]: unknown;
}

export interface ToolResult {
  content: ContentBlock[];
  /** The call failed; the text says why, for the model to act on. */
  isError?: boolean;
  details?: ToolResultDetails;
}

/** What a handler may return. */
export type ToolOutput = string | ToolResult;

/** The error convention of string results: a JSON object whose first key is `error`. */
export const looksLikeError = (text: string): boolean => text.startsWith('{"error"');

export const textBlock = (text: string): TextBlock => ({ type: "text", text });

/** A text result; its error flag follows the `{"error": ...}` convention unless given. */
export function textResult(text: string, isError = looksLikeError(text)): ToolResult {
  return isError ? { content: [textBlock(text)], isError: true } : { content: [textBlock(text)] };
}

/** `{"error": message}` as a failed result. */
export function errorResult(message: string): ToolResult {
  return { content: [textBlock(JSON.stringify({ error: message }))], isError: true };
}

/** A handler's value as a result: strings keep their text byte for byte. */
export function toToolResult(out: unknown): ToolResult {
  if (typeof out === "string") return textResult(out);
  if (isToolResult(out)) return out;
  // Objects from careless handlers: what they would have been as JSON text.
  return textResult(JSON.stringify(out) ?? String(out));
}

export function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content) &&
    (value as { content: unknown[] }).content.every(
      (b) => typeof b === "object" && b !== null && typeof (b as { type?: unknown }).type === "string",
    )
  );
}

const linkLine = (b: ResourceLinkBlock): string =>
  `[resource: ${b.name ? `${b.name} ` : ""}${b.uri}${b.mimeType ? ` (${b.mimeType})` : ""}]`;

/**
 * The text the model reads: text blocks and resource links, one per line. A plain string result
 * comes back unchanged (the prompt cache depends on it).
 */
export function resultText(result: ToolResult): string {
  const parts: string[] = [];
  for (const block of result.content) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "resource_link") parts.push(linkLine(block));
  }
  return parts.join("\n");
}

export function resultImages(result: ToolResult): ImageBlock[] {
  return result.content.filter((b): b is ImageBlock => b.type === "image");
}

/** The same result with its text replaced (capped, redacted): images stay, links are in the text. */
export function withText(result: ToolResult, text: string): ToolResult {
  const rest = result.content.filter((b) => b.type === "image");
  return { ...result, content: [textBlock(text), ...rest] };
}
