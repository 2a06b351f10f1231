/**
 * What the browser needs from models other than its own turn: a screenshot for browser_vision
 * (attached for a main model that takes images, else described by the auxiliary task `vision`) and
 * a long snapshot condensed (`browser.summarize_snapshots`, task `web_extract`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type PreparedImage, prepareImage } from "../media/image-prepare.js";
import { dataUrl, sniffImage } from "../media/image-source.js";
import type { VisionRoute } from "../vision.js";
import type { SideModelCall } from "./manager.js";
import type { BrowserSession } from "./session.js";

/** Draws a numbered label and an outline on each element, in a layer removed after the shot. */
const LABELS_SCRIPT = `(boxes) => {
  const layer = document.createElement("div");
  layer.id = "__hermes_labels";
  layer.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647";
  for (const b of boxes) {
    const frame = document.createElement("div");
    frame.style.cssText = "position:fixed;left:" + b.x + "px;top:" + b.y + "px;width:" + b.width + "px;height:" + b.height + "px;outline:2px solid #e11;";
    const tag = document.createElement("div");
    tag.textContent = "[" + b.ref + "]";
    tag.style.cssText = "position:fixed;left:" + b.x + "px;top:" + Math.max(0, b.y - 14) + "px;background:#ffeb3b;color:#000;font:bold 11px/13px monospace;padding:0 2px;border:1px solid #e11";
    layer.append(frame, tag);
  }
  document.documentElement.append(layer);
}`;
const REMOVE_LABELS = `document.getElementById("__hermes_labels")?.remove()`;

export interface VisionOutcome {
  /** The auxiliary model's answer. */
  analysis?: string;
  /** The screenshot prepared for the main model, which looks at it itself (native route). */
  image?: PreparedImage;
  error?: string;
  screenshotPath: string;
  labelled: number;
}

/** What the model is told of an annotated screenshot. */
export const LABELS_NOTE =
  "Interactive elements are outlined in red and labelled [N]; label [N] is the element the agent uses as @eN.";

/** The viewport as a JPEG, labelled when asked (the labels removed after the shot). */
async function screenshot(
  session: BrowserSession,
  annotate: boolean,
): Promise<{ shot: Buffer; labelled: number }> {
  if (!annotate) return { shot: await session.screenshot(), labelled: 0 };
  const snap = await session.snapshot(false, true);
  const boxes = snap.boxes.filter((b) => b.width > 0 && b.height > 0);
  await session.inPage(`(${LABELS_SCRIPT})(${JSON.stringify(boxes)})`);
  try {
    return { shot: await session.screenshot(), labelled: boxes.length };
  } finally {
    await session.inPage(REMOVE_LABELS).catch(() => undefined);
  }
}

/**
 * Screenshots the viewport (labelled when asked) and saves it under cache/screenshots. On the
 * native route the screenshot comes back prepared for the main model; otherwise the auxiliary
 * vision model answers `question` about it.
 */
export async function lookAtPage(
  session: BrowserSession,
  question: string,
  annotate: boolean,
  opts: { home: string; route: VisionRoute; sideModel: SideModelCall | undefined; signal?: AbortSignal },
): Promise<VisionOutcome> {
  const { shot, labelled } = await screenshot(session, annotate);
  const dir = join(opts.home, "cache", "screenshots");
  await mkdir(dir, { recursive: true });
  const screenshotPath = join(dir, `browser_${new Date().toISOString().replace(/[:.]/g, "-")}.jpg`);
  await writeFile(screenshotPath, shot);
  // The same preparation as vision_analyze's, to the receiving model's limits: a large viewport
  // (or device scale) is scaled down.
  const prepared = await prepareImage(shot, sniffImage(shot), opts.route.limits);
  if (!prepared.ok)
    return { screenshotPath, labelled, error: `The screenshot cannot be sent: ${prepared.error}` };
  const image = prepared.image;
  if (opts.route.native) return { screenshotPath, labelled, image };
  if (!opts.sideModel)
    return { screenshotPath, labelled, error: "No vision model is available to look at the screenshot." };
  const labels = annotate ? ` ${LABELS_NOTE}` : "";
  const result = await opts.sideModel(
    "vision",
    [
      {
        role: "user",
        content: [
          {
            type: "text",
            text: `This is a screenshot of the web page ${session.url}.${labels} Answer precisely from what is visible.\n\nQuestion: ${question}`,
          },
          { type: "image_url", image_url: { url: dataUrl(image) } },
        ],
      },
    ],
    opts.signal,
  );
  return result.ok
    ? { screenshotPath, labelled, analysis: result.text }
    : { screenshotPath, labelled, error: `The vision model could not answer: ${result.error}` };
}

/** A long snapshot condensed by the side model, refs kept; undefined when the model fails. */
export async function summarizeSnapshot(
  text: string,
  url: string,
  maxChars: number,
  sideModel: SideModelCall,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const prompt =
    `Below is an accessibility snapshot of the web page ${url}, too long to use whole. Rewrite it in under ` +
    `${maxChars} characters for an agent that will act on the page: keep every line that carries an element ref ` +
    "(@e1, @e2, ...) exactly as written, keep headings, and summarise the remaining text briefly. Output only the " +
    `condensed snapshot.\n\n${text}`;
  const result = await sideModel("web_extract", [{ role: "user", content: prompt }], signal);
  if (!result.ok || !result.text.trim()) return undefined;
  return result.text.trim().slice(0, maxChars);
}
