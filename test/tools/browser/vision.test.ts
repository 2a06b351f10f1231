import { readFileSync } from "node:fs";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ModelTarget } from "../../../src/llm/types.js";
import { createBrowserService } from "../../../src/runtime/browser-setup.js";
import { createRuntime, type Runtime } from "../../../src/runtime/runtime.js";
import { registerBrowserTools } from "../../../src/tools/builtin/browser/index.js";
import { sniffImage } from "../../../src/tools/builtin/media/image-source.js";
import { sandbox } from "../../support/cli.js";
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

/** The tool_result blocks of an Anthropic request, in order. */
function anthropicToolResults(req: RecordedRequest): Array<Array<Record<string, unknown>>> {
  type Block = { type: string; content?: string | Array<Record<string, unknown>> };
  const messages = req.body.messages as Array<{ content: string | Block[] }>;
  return messages
    .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
    .filter((b) => b.type === "tool_result")
    .map((b) => (typeof b.content === "string" ? [{ type: "text", text: b.content }] : (b.content ?? [])));
}

/** Pixels of the label colour (#ffeb3b) in a decoded image. */
async function labelPixels(image: Buffer): Promise<number> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    if (data[i]! > 230 && data[i + 1]! > 210 && data[i + 1]! < 250 && data[i + 2]! < 110) count++;
  }
  return count;
}

describe.skipIf(noChromium())("browser_vision for a main model that takes images", () => {
  let fake: FakeLlm;
  let runtime: Runtime | undefined;
  beforeAll(async () => {
    fake = await startFakeLlm();
    site = await startTestSite();
  });
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
  });
  afterAll(async () => {
    await site?.close();
    await fake?.close();
  });

  it("attaches the annotated screenshot to the tool result and asks no auxiliary model", async () => {
    const box = sandbox(
      `model:\n  provider: custom\n  api_mode: anthropic_messages\n  base_url: ${fake.anthropicBaseUrl}\n` +
        "  api_key: test-key\n  default: claude-sonnet-4-5\nagent:\n  api_max_retries: 0\ntoolsets: [browser]\n" +
        "security:\n  allow_private_urls: true\n" +
        // An auxiliary vision model is set: the main model is asked instead all the same.
        `auxiliary:\n  vision:\n    base_url: ${fake.openaiBaseUrl}\n    model: vision-model\n`,
    );
    runtime = createRuntime({ home: box.home, cwd: box.work, platform: "test", env: {} });
    fake.enqueue(
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/` } }] },
      {
        toolCalls: [
          { name: "browser_vision", arguments: { question: "Which label is Form?", annotate: true } },
        ],
      },
      { text: "Label [2]." },
    );
    const agent = runtime.newAgent(() => undefined);
    const r = await agent.runConversation("Which label is the form link?");
    await agent.close();
    expect(r.status).toBe("completed");
    expect(fake.requests.map((q) => q.protocol)).toEqual(["anthropic", "anthropic", "anthropic"]);
    const [, second, third] = fake.requests;
    expect(
      anthropicToolResults(second!)
        .flat()
        .filter((b) => b.type === "image"),
    ).toEqual([]);
    const result = anthropicToolResults(third!).at(-1)!;
    expect(result.map((b) => b.type)).toEqual(["text", "image"]);
    const fields = JSON.parse(String(result[0]!.text)) as Record<string, unknown>;
    expect(fields).toMatchObject({ success: true, url: `${site.url}/`, title: "Home", labelled: 3 });
    expect(String(fields.note)).toContain("label [N] is the element the agent uses as @eN");
    expect(String(fields.note)).toContain("Answer from it: Which label is Form?");
    expect(fields).not.toHaveProperty("analysis");
    const source = result[1]!.source as { type: string; media_type: string; data: string };
    expect(source).toMatchObject({ type: "base64", media_type: "image/jpeg" });
    const sent = Buffer.from(source.data, "base64");
    // Within the main model's limits (Anthropic: 1568 px), so the saved screenshot goes as it is.
    expect(sniffImage(sent)).toEqual({ mimeType: "image/jpeg", width: 1280, height: 800 });
    expect(fields.screenshot).toBe("1280x800 JPEG from the viewport");
    expect(sent.equals(readFileSync(String(fields.screenshot_path)))).toBe(true);
    // The ref labels were drawn before the shot.
    expect(await labelPixels(sent)).toBeGreaterThan(50);
  });
});
