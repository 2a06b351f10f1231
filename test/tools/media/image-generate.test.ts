import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HermesConfig } from "../../../src/core/config-defaults.js";
import { createHarness, type ToolHarness } from "../helpers.js";
import { makePng } from "./images.js";
import { json, mediaTools, type StandIn, startStandIn } from "./stand-ins.js";

const OPENAI_PNG = makePng(3, 3);
const FAL_PNG = makePng(8, 5);

let openai: StandIn;
let fal: StandIn;
let h: ToolHarness;

beforeAll(async () => {
  openai = await startStandIn((req, res) => {
    if (req.path !== "/v1/images/generations") return json(res, 404, { error: { message: "no route" } });
    if (req.headers.authorization !== "Bearer sk-test")
      return json(res, 401, { error: { message: "bad key" } });
    if (req.body.prompt.includes("forbidden"))
      return json(res, 400, { error: { message: "Your request was rejected by the safety system." } });
    json(res, 200, { created: 1, data: [{ b64_json: OPENAI_PNG.toString("base64") }] });
  });
  fal = await startStandIn((req, res, base) => {
    if (req.path === "/files/out.png") {
      res.writeHead(200, { "content-type": "image/png" });
      return res.end(FAL_PNG);
    }
    if (req.headers.authorization !== "Key fal-test") return json(res, 401, { detail: "bad key" });
    json(res, 200, { images: [{ url: `${base}/files/out.png`, content_type: "image/png" }], seed: 7 });
  });
  h = await createHarness();
});
afterAll(async () => {
  await h?.dispose();
  await openai?.close();
  await fal?.close();
});

/** A registry with the media tools reading `env`, and a call that parses the result. */
function media(env: Record<string, string>, settings: Partial<HermesConfig["image_gen"]> = {}) {
  const config: HermesConfig = {
    ...h.ctx.config,
    image_gen: {
      provider: "",
      model: "",
      openai_base_url: `${openai.url}/v1`,
      fal_base_url: fal.url,
      ...settings,
    },
  };
  return mediaTools(h.ctx, config, env, "image_generate");
}

describe("image_generate", () => {
  it("is offered only when a backend has its key", async () => {
    expect(await media({}).registry.isAvailable("image_generate")).toBe(false);
    expect(await media({ FAL_KEY: "fal-test" }).registry.isAvailable("image_generate")).toBe(true);
    expect(
      await media({ FAL_KEY: "fal-test" }, { provider: "openai" }).registry.isAvailable("image_generate"),
    ).toBe(false);
  });

  it("asks OpenAI's images API with the size of the aspect ratio and saves the PNG under cache/images", async () => {
    const r = await media({ OPENAI_API_KEY: "sk-test" }).call({
      prompt: "a red square",
      aspect_ratio: "landscape",
    });
    expect(r).toMatchObject({
      success: true,
      backend: "openai",
      model: "gpt-image-1",
      aspect_ratio: "landscape",
    });
    expect(String(r.path).startsWith(join(h.home, "cache", "images"))).toBe(true);
    expect(readFileSync(String(r.path))).toEqual(OPENAI_PNG);
    expect(openai.requests.at(-1)!.body).toEqual({
      model: "gpt-image-1",
      prompt: "a red square",
      size: "1536x1024",
      n: 1,
    });
  });

  it("posts to FAL's model endpoint and downloads the image it links", async () => {
    const r = await media({ FAL_KEY: "fal-test" }).call({ prompt: "a lighthouse", aspect_ratio: "portrait" });
    expect(r).toMatchObject({ success: true, backend: "fal", model: "fal-ai/flux/schnell" });
    expect(readFileSync(String(r.path))).toEqual(FAL_PNG);
    const post = fal.requests.find((q) => q.method === "POST")!;
    expect(post.path).toBe("/fal-ai/flux/schnell");
    expect(post.body).toEqual({ prompt: "a lighthouse", image_size: "portrait_16_9", num_images: 1 });
  });

  it("returns the provider's refusal and rejects unknown aspect ratios", async () => {
    const tools = media({ OPENAI_API_KEY: "sk-test" });
    const refused = await tools.call({ prompt: "something forbidden" });
    expect(refused.error).toContain("HTTP 400");
    expect(refused.error).toContain("rejected by the safety system");
    expect((await tools.call({ prompt: "x", aspect_ratio: "21:9" })).error).toContain(
      `'aspect_ratio' must be one of "square", "landscape", "portrait"`,
    );
  });
});
