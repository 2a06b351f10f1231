/**
 * vision_analyze through a real runtime and the scripted model server: the image goes to a main
 * model that takes images as an image part of the next request, and to the auxiliary vision model
 * otherwise, whose description comes back as the tool's text.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { makePng } from "./media/images.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.dispose();
  runtime = undefined;
});

const PNG = makePng(6, 4);

/** A runtime on the fake server with `modelYaml` as its model block and a picture in its work dir. */
function start(modelYaml: string, extraYaml = ""): string {
  const box = sandbox(`model:\n${modelYaml}agent:\n  api_max_retries: 0\ntoolsets: [vision]\n${extraYaml}`);
  writeFileSync(join(box.work, "chart.png"), PNG);
  runtime = createRuntime({
    home: box.home,
    cwd: box.work,
    platform: "test",
    env: { OPENAI_API_KEY: "test-key" },
  });
  return box.work;
}

async function converse(): Promise<void> {
  const agent = runtime!.newAgent(() => undefined);
  const r = await agent.runConversation("What does chart.png show?");
  expect(r.status).toBe("completed");
  await agent.close();
}

const anthropicModel = (model: string) =>
  `  provider: custom\n  api_mode: anthropic_messages\n  base_url: ${fake.anthropicBaseUrl}\n  api_key: test-key\n  default: ${model}\n`;
const chatModel = () => `  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`;
const call = {
  name: "vision_analyze",
  arguments: { image_url: "chart.png", question: "What colour is it?" },
};

/** Every image the request sends to an Anthropic model: `media_type` and base64 data. */
function anthropicImages(req: RecordedRequest): Array<{ media_type: string; data: string }> {
  const found: Array<{ media_type: string; data: string }> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "image") found.push((o.source ?? {}) as { media_type: string; data: string });
      Object.values(o).forEach(walk);
    }
  };
  walk(req.body.messages);
  return found;
}

describe("vision_analyze", () => {
  it("attaches the image to the tool result for a main model that takes images", async () => {
    start(anthropicModel("claude-sonnet-4-5"));
    fake.enqueue({ toolCalls: [call] }, { text: "It is red." });
    await converse();
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toContain("vision_analyze");
    expect(anthropicImages(fake.requests[0]!)).toEqual([]);
    expect(anthropicImages(fake.requests[1]!)).toEqual([
      { type: "base64", media_type: "image/png", data: PNG.toString("base64") },
    ]);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("6x4 PNG from chart.png");
  });

  it("asks the auxiliary vision model when the main model takes no images", async () => {
    start(
      chatModel(),
      `auxiliary:\n  vision:\n    base_url: ${fake.openaiBaseUrl}\n    model: vision-model\n`,
    );
    fake.enqueue({ toolCalls: [call] }, { text: "A red rectangle." }, { text: "It is red." });
    await converse();
    expect(fake.requests).toHaveLength(3);
    const aux = fake.requests[1]!;
    expect(aux.body.model).toBe("vision-model");
    const parts = aux.body.messages.at(-1).content as Array<{
      type: string;
      text?: string;
      image_url?: { url: string };
    }>;
    expect(parts.find((p) => p.type === "text")?.text).toContain("Question: What colour is it?");
    expect(parts.find((p) => p.type === "image_url")?.image_url?.url).toBe(
      `data:image/png;base64,${PNG.toString("base64")}`,
    );
    const toolMessage = fake.requests[2]!.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(JSON.parse(toolMessage.content)).toEqual({
      success: true,
      image: "6x4 PNG from chart.png",
      analysis: "A red rectangle.",
    });
    expect(JSON.stringify(fake.requests[2]!.body.messages)).not.toContain("data:image");
  });

  it("uses the auxiliary model for a vision model too when vision.native is false", async () => {
    start(
      anthropicModel("claude-sonnet-4-5"),
      `vision:\n  native: false\nauxiliary:\n  vision:\n    base_url: ${fake.openaiBaseUrl}\n    model: vision-model\n`,
    );
    fake.enqueue({ toolCalls: [call] }, { text: "A red rectangle." }, { text: "It is red." });
    await converse();
    expect(fake.requests.map((r) => r.protocol)).toEqual(["anthropic", "openai", "anthropic"]);
    expect(anthropicImages(fake.requests[2]!)).toEqual([]);
    expect(JSON.stringify(fake.requests[2]!.body.messages)).toContain("A red rectangle.");
  });
});
