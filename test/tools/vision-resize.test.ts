/**
 * Images made to fit the provider before they are sent: scaled down, turned upright by EXIF,
 * re-encoded (PNG kept for small transparent images), metadata dropped; small clean images sent
 * as they are. The end-to-end cases go through a real runtime and the scripted model server and
 * decode the image the recorded request carried.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import {
  DEFAULT_IMAGE_LIMITS,
  imageLimitsFor,
  prepareImage,
} from "../../src/tools/builtin/media/image-prepare.js";
import { loadImage, sniffImage } from "../../src/tools/builtin/media/image-source.js";
import { sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

/** A `width` x `height` PNG of random pixels: incompressible, like the fine detail of a photo. */
async function noise(width: number, height: number, channels: 3 | 4 = 3): Promise<Buffer> {
  const pixels = randomBytes(width * height * channels);
  return sharp(pixels, { raw: { width, height, channels } }).png({ compressionLevel: 1 }).toBuffer();
}

/** A plain image with a red left half, as PNG or JPEG. */
async function halves(width: number, height: number, format: "png" | "jpeg"): Promise<Buffer> {
  const left = await sharp({
    create: { width: Math.floor(width / 2), height, channels: 3, background: "#ff0000" },
  })
    .png()
    .toBuffer();
  const img = sharp({ create: { width, height, channels: 3, background: "#0000ff" } }).composite([
    { input: left, left: 0, top: 0 },
  ]);
  return format === "png" ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}

const base64Of = (url: string): Buffer => Buffer.from(url.slice(url.indexOf(",") + 1), "base64");

describe("preparing an image", () => {
  it("scales a large PNG down to the long side of the limit, keeping its proportions", async () => {
    const big = await halves(6000, 4000, "png");
    const r = await prepareImage(big, sniffImage(big), DEFAULT_IMAGE_LIMITS);
    if (!r.ok) throw new Error(r.error);
    expect(r.image).toMatchObject({
      mimeType: "image/jpeg",
      width: 1568,
      height: 1045,
      scaledFrom: { width: 6000, height: 4000 },
    });
    const meta = await sharp(r.image.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1568, 1045]);
    // The pixels are the picture's: red on the left, blue on the right.
    const { data } = await sharp(r.image.data).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(200);
    expect(data[2]).toBeLessThan(60);
  });

  it("uses OpenAI's sizes for the Responses protocol: 768 px on the short side", async () => {
    const big = await halves(6000, 4000, "png");
    const r = await prepareImage(big, sniffImage(big), imageLimitsFor("codex_responses"));
    expect(r.ok && [r.image.width, r.image.height]).toEqual([1152, 768]);
    expect(imageLimitsFor("anthropic_messages")).toEqual(DEFAULT_IMAGE_LIMITS);
    expect(imageLimitsFor("chat_completions")).toEqual(DEFAULT_IMAGE_LIMITS);
  });

  it("lowers the JPEG quality step by step, then the size, until the image fits the byte limit", async () => {
    const photo = await noise(1200, 800);
    const atBest = (await sharp(photo).jpeg({ quality: 85, mozjpeg: true }).toBuffer()).length;
    const lower = await prepareImage(photo, sniffImage(photo), {
      maxSide: 1568,
      maxBytes: Math.floor(atBest * 0.8),
    });
    if (!lower.ok) throw new Error(lower.error);
    expect(lower.image.data.length).toBeLessThanOrEqual(atBest * 0.8);
    expect([lower.image.mimeType, lower.image.width, lower.image.height]).toEqual(["image/jpeg", 1200, 800]);
    const smaller = await prepareImage(photo, sniffImage(photo), { maxSide: 1568, maxBytes: 60_000 });
    if (!smaller.ok) throw new Error(smaller.error);
    expect(smaller.image.data.length).toBeLessThanOrEqual(60_000);
    expect(smaller.image.width).toBeLessThan(1200);
    expect(smaller.image.width / smaller.image.height).toBeCloseTo(1.5, 1);
  });

  it("sends a small clean JPEG as it is, without enlarging it", async () => {
    const small = await halves(320, 200, "jpeg");
    const r = await prepareImage(small, sniffImage(small), DEFAULT_IMAGE_LIMITS);
    if (!r.ok) throw new Error(r.error);
    expect(r.image.data.equals(small)).toBe(true);
    expect(r.image).toMatchObject({ mimeType: "image/jpeg", width: 320, height: 200 });
    expect(r.image.scaledFrom).toBeUndefined();
  });

  it("turns a photo upright by its EXIF orientation and drops the metadata", async () => {
    // Stored 300 wide, 100 high; orientation 6 says: show it rotated 90° clockwise.
    const sideways = await sharp({ create: { width: 300, height: 100, channels: 3, background: "#00ff00" } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(sideways).metadata()).orientation).toBe(6);
    const r = await prepareImage(sideways, sniffImage(sideways), DEFAULT_IMAGE_LIMITS);
    if (!r.ok) throw new Error(r.error);
    expect([r.image.width, r.image.height]).toEqual([100, 300]);
    const meta = await sharp(r.image.data).metadata();
    expect([meta.width, meta.height, meta.orientation, meta.exif]).toEqual([100, 300, undefined, undefined]);
  });

  it("keeps a small transparent image as PNG with its alpha; a large one becomes JPEG on white", async () => {
    const dot = await sharp({
      create: { width: 2400, height: 1200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        {
          input: await sharp({
            create: { width: 400, height: 400, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
          })
            .png()
            .toBuffer(),
          left: 100,
          top: 100,
        },
      ])
      .png()
      .toBuffer();
    const clear = await prepareImage(dot, sniffImage(dot), DEFAULT_IMAGE_LIMITS);
    if (!clear.ok) throw new Error(clear.error);
    expect(clear.image).toMatchObject({ mimeType: "image/png", width: 1568, height: 784 });
    const meta = await sharp(clear.image.data).metadata();
    expect([meta.format, meta.hasAlpha]).toEqual(["png", true]);
    const corner = await sharp(clear.image.data)
      .extract({ left: 0, top: 0, width: 1, height: 1 })
      .raw()
      .toBuffer();
    expect(corner[3]).toBe(0);

    const translucentPhoto = await noise(1500, 1000, 4);
    const big = await prepareImage(translucentPhoto, sniffImage(translucentPhoto), DEFAULT_IMAGE_LIMITS);
    expect(big.ok && big.image.mimeType).toBe("image/jpeg");
  });

  it("takes the first frame of a GIF and formats sharp reads beyond the four providers take", async () => {
    const frames = await sharp({ create: { width: 40, height: 90, channels: 3, background: "#123456" } })
      .gif()
      .toBuffer();
    const gif = await prepareImage(frames, sniffImage(frames), DEFAULT_IMAGE_LIMITS);
    expect(gif.ok && [gif.image.mimeType, gif.image.width, gif.image.height]).toEqual(["image/jpeg", 40, 90]);
    const tiff = await sharp({ create: { width: 64, height: 32, channels: 3, background: "#abcdef" } })
      .tiff()
      .toBuffer();
    expect(sniffImage(tiff)).toBeUndefined();
    const fromTiff = await prepareImage(tiff, undefined, DEFAULT_IMAGE_LIMITS);
    expect(fromTiff.ok && [fromTiff.image.mimeType, fromTiff.image.width]).toEqual(["image/jpeg", 64]);
  });

  it("gives a clear error for a corrupt or truncated file, through every source", async () => {
    const dir = tempDir("hermes-vision-bad-");
    const good = await halves(2000, 1000, "png");
    writeFileSync(join(dir, "cut.png"), good.subarray(0, Math.floor(good.length / 2)));
    const cut = await loadImage("cut.png", { cwd: dir });
    expect(cut.ok ? "" : cut.error).toMatch(
      /^Cannot use cut\.png: it could not be decoded as an image \(.+\)\.$/,
    );
    const garbage = Buffer.from("\x89PNG\r\n\x1a\n this is not really a png at all", "latin1");
    const viaData = await loadImage(`data:image/png;base64,${garbage.toString("base64")}`, { cwd: dir });
    expect(viaData.ok ? "" : viaData.error).toContain("could not be decoded as an image");
  });
});

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.dispose();
  runtime = undefined;
});

/** A runtime on the fake server, with `files` in its working directory. */
function start(modelYaml: string, files: Record<string, Buffer>, extraYaml = ""): void {
  const box = sandbox(`model:\n${modelYaml}agent:\n  api_max_retries: 0\ntoolsets: [vision]\n${extraYaml}`);
  for (const [name, data] of Object.entries(files)) writeFileSync(join(box.work, name), data);
  runtime = createRuntime({ home: box.home, cwd: box.work, platform: "test", env: { OPENAI_API_KEY: "k" } });
}

async function converse(image: string): Promise<void> {
  fake.enqueue(
    { toolCalls: [{ name: "vision_analyze", arguments: { image_url: image, question: "What is it?" } }] },
    { text: "Seen." },
  );
  const agent = runtime!.newAgent(() => undefined);
  const r = await agent.runConversation(`Look at ${image}`);
  expect(r.status).toBe("completed");
  await agent.close();
}

/** The images an Anthropic request carries, decoded. */
function anthropicImages(req: RecordedRequest): Array<{ mediaType: string; data: Buffer }> {
  const found: Array<{ mediaType: string; data: Buffer }> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "image") {
        const source = o.source as { media_type: string; data: string };
        found.push({ mediaType: source.media_type, data: Buffer.from(source.data, "base64") });
      }
      Object.values(o).forEach(walk);
    }
  };
  walk(req.body.messages);
  return found;
}

const anthropicModel = () =>
  `  provider: custom\n  api_mode: anthropic_messages\n  base_url: ${fake.anthropicBaseUrl}\n  api_key: k\n  default: claude-sonnet-4-5\n`;

describe("vision_analyze sends images within the provider's limits", () => {
  it("a 6000x4000 PNG reaches an Anthropic model as a 1568 px JPEG under 5 MB", async () => {
    start(anthropicModel(), { "big.png": await halves(6000, 4000, "png") });
    await converse("big.png");
    const [image] = anthropicImages(fake.requests[1]!);
    expect(image?.mediaType).toBe("image/jpeg");
    const meta = await sharp(image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1568, 1045]);
    expect(image!.data.toString("base64").length).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain(
      "1568x1045 JPEG from big.png (scaled down from 6000x4000)",
    );
  });

  it("the auxiliary vision model gets the scaled data URL; a corrupt file is a clear tool error", async () => {
    const chat = `  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`;
    const aux = `auxiliary:\n  vision:\n    base_url: ${fake.openaiBaseUrl}\n    model: vision-model\n`;
    start(
      chat,
      { "wide.png": await halves(5000, 1000, "png"), "broken.jpg": Buffer.from("\xff\xd8\xff garbage") },
      aux,
    );
    fake.enqueue(
      { toolCalls: [{ name: "vision_analyze", arguments: { image_url: "wide.png", question: "What?" } }] },
      { text: "Two colours." },
      { toolCalls: [{ name: "vision_analyze", arguments: { image_url: "broken.jpg", question: "What?" } }] },
      { text: "Done." },
    );
    const agent = runtime!.newAgent(() => undefined);
    expect((await agent.runConversation("Look at both")).status).toBe("completed");
    await agent.close();
    const auxRequest = fake.requests.find((r) => r.body.model === "vision-model")!;
    const parts = auxRequest.body.messages.at(-1).content as Array<{
      type: string;
      image_url?: { url: string };
    }>;
    const url = parts.find((p) => p.type === "image_url")!.image_url!.url;
    expect(url.startsWith("data:image/jpeg;base64,")).toBe(true);
    const meta = await sharp(base64Of(url)).metadata();
    expect([meta.width, meta.height]).toEqual([1568, 314]);
    const last = fake.requests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === "tool")
      .at(-1);
    expect(JSON.parse(last.content).error).toMatch(
      /^Cannot use broken\.jpg: it could not be decoded as an image/,
    );
  });
});
