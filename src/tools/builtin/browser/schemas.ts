/** The browser tools' schemas: what the model needs to choose and call each one. */
import type { ToolSchema } from "../../registry.js";

/** Dropped from browser_navigate's description when web_extract is not offered. */
export const PREFER_WEB_EXTRACT =
  " To just read a page, web_extract is faster and cheaper; use the browser to interact or for pages that need JavaScript.";

const REF = { type: "string", description: "An element ref from the latest snapshot, e.g. @e5." };
const none = { type: "object", properties: {} };

export const BROWSER_SCHEMAS: Readonly<Record<string, ToolSchema>> = {
  browser_navigate: {
    description: `Open a URL in the browser (starts it if needed) and return a snapshot of the page with element refs (@e1, @e2, ...) for the other browser tools.${PREFER_WEB_EXTRACT}`,
    parameters: {
      type: "object",
      properties: { url: { type: "string", description: "http(s) URL to open." } },
      required: ["url"],
    },
  },
  browser_snapshot: {
    description:
      "The current page as an accessibility tree: roles, names and text, each interactive element with a ref (@eN) on its line. Refs stay valid until the page navigates. Long snapshots are shortened with a note. Open JavaScript dialogs are reported here.",
    parameters: {
      type: "object",
      properties: {
        full: { type: "boolean", description: "Include link URLs and uncut text (default false: compact)." },
      },
    },
  },
  browser_click: {
    description: "Click an element by its ref from the snapshot.",
    parameters: { type: "object", properties: { ref: REF }, required: ["ref"] },
  },
  browser_type: {
    description:
      "Replace the text of an input field by its ref (the field is cleared first); on a dropdown, select the option with that label.",
    parameters: {
      type: "object",
      properties: { ref: REF, text: { type: "string", description: "The text to enter." } },
      required: ["ref", "text"],
    },
  },
  browser_press: {
    description:
      "Press a key on the focused element, e.g. Enter to submit, Tab, Escape, ArrowDown, Control+a.",
    parameters: {
      type: "object",
      properties: { key: { type: "string", description: "Key name (Playwright syntax)." } },
      required: ["key"],
    },
  },
  browser_scroll: {
    description: "Scroll the page by most of a screen, to bring more content into view.",
    parameters: {
      type: "object",
      properties: { direction: { type: "string", enum: ["up", "down"] } },
      required: ["direction"],
    },
  },
  browser_back: { description: "Go back to the previous page in the browser's history.", parameters: none },
  browser_get_images: { description: "List the page's images: URL, alt text and size.", parameters: none },
  browser_vision: {
    description:
      "Take a screenshot of the page and have a vision model answer a question about it: for layouts, charts, CAPTCHAs, or whatever the text snapshot misses. Returns the answer and the screenshot's path.",
    parameters: {
      type: "object",
      properties: {
        question: { type: "string", description: "What you want to know about what the page shows." },
        annotate: {
          type: "boolean",
          description: "Label interactive elements [N] in the screenshot; [N] is ref @eN.",
        },
      },
      required: ["question"],
    },
  },
  browser_console: {
    description:
      "The page's console messages and uncaught JavaScript errors; with `expression`, evaluate JavaScript in the page and return its value (JSON).",
    parameters: {
      type: "object",
      properties: {
        clear: { type: "boolean", description: "Empty the message buffers after reading." },
        expression: { type: "string", description: "JavaScript expression, e.g. document.title." },
      },
    },
  },
  browser_dialog: {
    description: "Answer the JavaScript alert, confirm or prompt dialog that blocks the page.",
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["accept", "dismiss"] },
        prompt_text: { type: "string", description: "Text to enter in a prompt dialog before accepting." },
      },
      required: ["action"],
    },
  },
  browser_close: {
    description:
      "Close this task's browser (its pages, cookies and storage). The next browser call starts a fresh one.",
    parameters: none,
  },
};

/** browser_navigate without the web_extract advice when web_extract is not offered. */
export function navigateSchemaFor(available: readonly string[]): Partial<ToolSchema> | undefined {
  if (available.includes("web_extract")) return undefined;
  const base = BROWSER_SCHEMAS.browser_navigate!;
  return { description: base.description.replace(PREFER_WEB_EXTRACT, "") };
}
