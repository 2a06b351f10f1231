/**
 * MCP results as Hermes tool results: text stays text, images stay images (the model sees them
 * where the provider takes images in tool results), resource links stay links, embedded resources
 * become their text (or image), structured content is kept in the details and becomes the text when
 * the server sent no text of its own, and the server's error flag is the result's.
 */
import type { ContentBlock, ToolResult } from "../tools/result.js";

/** A resource's contents, as embedded in a result or returned by resources/read. */
export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** One content block of an MCP result (the SDK's shapes, structurally). */
export interface McpContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  description?: string;
  resource?: McpResourceContents;
}

export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  /** The pre-2025 result shape some servers still send. */
  toolResult?: unknown;
}

const base64Bytes = (data: string): number => {
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
};

const label = (uri: string, mimeType: string | undefined): string =>
  `${uri}${mimeType ? ` (${mimeType})` : ""}`;

/** A resource's contents as blocks: its text, an image, or a line saying what binary data it holds. */
export function resourceBlocks(r: McpResourceContents): ContentBlock[] {
  if (typeof r.text === "string")
    return [{ type: "text", text: `[resource: ${label(r.uri, r.mimeType)}]\n${r.text}` }];
  if (typeof r.blob === "string" && r.mimeType?.startsWith("image/"))
    return [
      { type: "text", text: `[resource: ${label(r.uri, r.mimeType)}]` },
      { type: "image", mimeType: r.mimeType, data: r.blob },
    ];
  const size = typeof r.blob === "string" ? `, ${base64Bytes(r.blob)} bytes of binary data` : "";
  return [{ type: "text", text: `[resource: ${label(r.uri, r.mimeType)}${size}]` }];
}

/** One MCP content block as Hermes blocks. */
export function contentBlocks(c: McpContent): ContentBlock[] {
  switch (c.type) {
    case "text":
      return [{ type: "text", text: c.text ?? "" }];
    case "image":
      return c.data ? [{ type: "image", mimeType: c.mimeType ?? "image/png", data: c.data }] : [];
    case "audio":
      return [
        {
          type: "text",
          text: `[audio: ${c.mimeType ?? "unknown type"}, ${base64Bytes(c.data ?? "")} bytes; audio is not passed to the model]`,
        },
      ];
    case "resource_link":
      return [
        {
          type: "resource_link",
          uri: c.uri ?? "",
          ...(c.name ? { name: c.name } : {}),
          ...(c.mimeType ? { mimeType: c.mimeType } : {}),
          ...(c.description ? { description: c.description } : {}),
        },
      ];
    case "resource":
      return c.resource ? resourceBlocks(c.resource) : [];
    default:
      return [{ type: "text", text: `[unsupported MCP content of type '${c.type}']` }];
  }
}

/** A tools/call result as a Hermes result. */
export function mapCallResult(result: McpCallResult): ToolResult {
  const content: ContentBlock[] = (result.content ?? []).flatMap(contentBlocks);
  const hasText = content.some((b) => b.type === "text" && b.text !== "");
  if (!hasText && result.structuredContent !== undefined)
    content.unshift({ type: "text", text: JSON.stringify(result.structuredContent) });
  if (!hasText && result.toolResult !== undefined && result.content === undefined)
    content.unshift({ type: "text", text: JSON.stringify(result.toolResult) });
  if (content.length === 0 || content.every((b) => b.type === "text" && b.text === ""))
    content.splice(0, content.length, {
      type: "text",
      text: result.isError ? "The MCP tool reported an error without a message." : "(empty result)",
    });
  return {
    content,
    ...(result.isError ? { isError: true } : {}),
    ...(result.structuredContent !== undefined
      ? { details: { structuredContent: result.structuredContent } }
      : {}),
  };
}

/** A failure the model reads (`{"error": ...}`, the convention of every Hermes tool). */
export const mcpError = (message: string): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify({ error: message }) }],
  isError: true,
});
