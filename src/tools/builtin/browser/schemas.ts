/** The browser tools' schemas: what the model needs to choose and call each one. */
import type { ToolSchema } from "../../registry.js";

/** Dropped from browser_navigate's description when web_extract is not offered. */
export const PREFER_WEB_EXTRACT = " To just read a page, web_extract is cheaper.";

const REF = { type: "string" };
const none = { type: "object", properties: {} };

export const BROWSER_SCHEMAS: Readonly<Record<string, ToolSchema>> = {
  browser_navigate: {
    description: `Open a URL; returns a snapshot with element refs (@e1, ...).${PREFER_WEB_EXTRACT}`,
    parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
  browser_snapshot: {
    description:
      "The page's accessibility tree with element refs (@eN, valid until navigation) and open dialogs.",
    parameters: {
      type: "object",
      properties: { full: { type: "boolean", description: "Link URLs and uncut text." } },
    },
  },
  browser_click: {
    description: "Click an element.",
    parameters: { type: "object", properties: { ref: REF }, required: ["ref"] },
  },
  browser_type: {
    description: "Replace an input's text, or pick a dropdown option by label.",
    parameters: {
      type: "object",
      properties: { ref: REF, text: { type: "string" } },
      required: ["ref", "text"],
    },
  },
  browser_press: {
    description: "Press a key (Playwright name, e.g. Enter, Control+a).",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  },
  browser_scroll: {
    description: "Scroll by most of a screen.",
    parameters: {
      type: "object",
      properties: { direction: { type: "string", enum: ["up", "down"] } },
      required: ["direction"],
    },
  },
  browser_back: { description: "Go back in history.", parameters: none },
  browser_get_images: { description: "List the page's images (URL, alt, size).", parameters: none },
  browser_vision: {
    description: "Look at a screenshot of the page: the image itself, or an answer and its path.",
    parameters: {
      type: "object",
      properties: {
        question: { type: "string" },
        annotate: { type: "boolean", description: "Label elements [N] (= ref @eN)." },
      },
      required: ["question"],
    },
  },
  browser_console: {
    description: "Console messages and JS errors; expression: evaluate JS in the page.",
    parameters: {
      type: "object",
      properties: {
        clear: { type: "boolean" },
        expression: { type: "string" },
      },
    },
  },
  browser_dialog: {
    description: "Accept or dismiss the JS dialog blocking the page.",
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["accept", "dismiss"] },
        prompt_text: { type: "string" },
      },
      required: ["action"],
    },
  },
  browser_close: {
    description: "Close the browser and its pages.",
    parameters: none,
  },
};

/** browser_navigate without the web_extract advice when web_extract is not offered. */
export function navigateSchemaFor(available: readonly string[]): Partial<ToolSchema> | undefined {
  if (available.includes("web_extract")) return undefined;
  const base = BROWSER_SCHEMAS.browser_navigate!;
  return { description: base.description.replace(PREFER_WEB_EXTRACT, "") };
}
