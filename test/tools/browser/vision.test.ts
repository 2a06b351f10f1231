import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ModelTarget } from "../../../src/llm/types.js";
import { createBrowserService } from "../../../src/runtime/browser-setup.js";
import { registerBrowserTools } from "../../../src/tools/builtin/browser/index.js";
import { type FakeLlm, type RecordedRequest, startFakeLlm } from "../../support/fake-llm.js";
import { createHarness, type ToolHarness } from "../helpers.js";
import { noChromium } from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

let llm: FakeLlm;
let site: TestSite;
let h: ToolHarness;
let closeBrowser: () => Promise<void>;

/** The image parts and the text of the one user message of an auxiliary request. */
function userParts(req: RecordedRequest): { text: string; images: string[] } {
  type Part = { type: string; text?: string; image_url?: { url: string } };
  const content = req.body.messages.at(-1).content as Part[] | string;
  if (typeof content === "string") return { text: content, images: [] };
  return {
    text: content
      .filter((p) => p.type === "text")
      .map((p) => p.text)
      .join("\n"),
    images: content.filter((p) => p.type === "image_url").map((p) => p.image_url?.url ?? ""),
  };
}

describe.skipIf(noChromium())("browser_vision and snapshot summaries through the auxiliary models", () => {
  beforeAll(async () => {
    llm = await startFakeLlm();
    site = await startTestSite();
    h = await createHarness({
      config: (c) => {
        c.security.allow_private_urls = true;
        c.auxiliary.vision = { ...c.auxiliary.vision, base_url: llm.openaiBaseUrl, model: "vision-model" };
        c.auxiliary.web_extract = {
          ...c.auxiliary.web_extract,
          base_url: llm.openaiBaseUrl,
          model: "reader-model",
        };
        c.browser.snapshot_max_chars = 600;
        c.browser.summarize_snapshots = true;
      },
    });
    const main: ModelTarget = {
      provider: "custom",
      apiMode: "chat_completions",
      model: "main-model",
      baseUrl: llm.openaiBaseUrl,
      apiKey: "test-key",
    };
    const manager = createBrowserService({ config: h.ctx.config, home: h.home, main });
    registerBrowserTools(h.registry, { manager });
    closeBrowser = () => manager.closeAll();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });
  afterAll(async () => {
    await closeBrowser?.();
    await h?.dispose();
    await site?.close();
    await llm?.close();
  });

  it("sends a screenshot of the page as an image part to the vision model and returns its answer", async () => {
    await h.call("browser_navigate", { url: `${site.url}/` });
    llm.enqueue({ text: "A welcome page with three links." });
    const r = await h.call("browser_vision", { question: "What is on this page?" });
    expect(r).toMatchObject({ success: true, analysis: "A welcome page with three links." });
    expect(llm.requests).toHaveLength(1);
    const req = llm.requests[0]!;
    expect(req.body.model).toBe("vision-model");
    const { text, images } = userParts(req);
    expect(text).toContain(`screenshot of the web page ${site.url}/`);
    expect(text).toContain("Question: What is on this page?");
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^data:image\/jpeg;base64,/);
    // The screenshot sent is the one saved for the user.
    const saved = readFileSync(String(r.screenshot_path));
    expect(saved.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(images[0]).toBe(`data:image/jpeg;base64,${saved.toString("base64")}`);
    expect(String(r.screenshot_path)).toContain(`${h.home}/cache/screenshots/`);
  });

  it("labels the interactive elements with their ref numbers when asked, then removes the labels", async () => {
    await h.call("browser_navigate", { url: `${site.url}/` });
    llm.enqueue({ text: "Label [2] is the Form link." });
    const r = await h.call("browser_vision", { question: "Which label is the form link?", annotate: true });
    expect(r).toMatchObject({ success: true, analysis: "Label [2] is the Form link.", labelled: 3 });
    expect(userParts(llm.requests[0]!).text).toContain(
      "labelled [N]; label [N] is the element the agent uses as @eN",
    );
    const left = await h.call("browser_console", {
      expression: "document.getElementById('__hermes_labels')",
    });
    expect(left.result).toBeNull();
  });

  it("condenses a long snapshot with the web_extract model, keeping the refs it wrote", async () => {
    llm.enqueue({
      text: '- heading "Long read" [level=1]\n- text: 150 numbered paragraphs ending in a bottom marker.',
    });
    const r = await h.call("browser_navigate", { url: `${site.url}/long` });
    expect(r.summarized).toBe(true);
    expect(r).not.toHaveProperty("truncated");
    expect(String(r.snapshot)).toMatch(/^- heading "Long read" \[level=1\]\n- text: 150 numbered paragraphs/);
    expect(String(r.snapshot)).toMatch(/\[condensed by a model from a \d+-character snapshot\]$/);
    const req = llm.requests[0]!;
    expect(req.body.model).toBe("reader-model");
    expect(userParts(req).text).toContain("Paragraph number 150 of a long read.");
    expect(userParts(req).text).toContain("keep every line that carries an element ref");
  });

  it("falls back to cutting the snapshot when no model can summarise it", async () => {
    llm.enqueue({ fault: { kind: "http", status: 400 } }, { fault: { kind: "http", status: 400 } });
    const r = await h.call("browser_snapshot", {});
    expect(r.truncated).toBe(true);
    expect(r).not.toHaveProperty("summarized");
    expect(String(r.snapshot)).toContain("more lines not shown");
  });

  it("reports a vision model failure with the saved screenshot", async () => {
    llm.enqueue({ fault: { kind: "http", status: 400 } }, { fault: { kind: "http", status: 400 } });
    const r = await h.call("browser_vision", { question: "Anything?" });
    expect(String(r.error)).toMatch(/^The vision model could not answer: /);
    expect(readFileSync(String(r.screenshot_path)).length).toBeGreaterThan(0);
  });
});
