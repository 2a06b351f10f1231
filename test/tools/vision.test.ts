import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import { loadImage, MAX_IMAGE_BYTES, sniffImage } from "../../src/tools/builtin/media/image-source.js";
import { attachNatively, type VisionService } from "../../src/tools/builtin/vision.js";
import { tempDir } from "../support/temp.js";
import { jpegHeader, makePng, pngHeader } from "./media/images.js";

describe("image headers", () => {
  it("reads format and size of PNG, JPEG, GIF and WebP", () => {
    expect(sniffImage(makePng(3, 2))).toEqual({ mimeType: "image/png", width: 3, height: 2 });
    expect(sniffImage(jpegHeader(640, 480))).toEqual({ mimeType: "image/jpeg", width: 640, height: 480 });
    const gif = Buffer.concat([
      Buffer.from("GIF89a", "latin1"),
      Buffer.from([0x20, 0x01, 0x10, 0x00]),
      Buffer.alloc(8),
    ]);
    expect(sniffImage(gif)).toEqual({ mimeType: "image/gif", width: 288, height: 16 });
    const webp = Buffer.alloc(30);
    webp.write("RIFF", 0, "latin1");
    webp.write("WEBPVP8X", 8, "latin1");
    webp.writeUIntLE(1919, 24, 3);
    webp.writeUIntLE(1079, 27, 3);
    expect(sniffImage(webp)).toEqual({ mimeType: "image/webp", width: 1920, height: 1080 });
    expect(sniffImage(Buffer.from("just some text, not an image"))).toBeUndefined();
  });
});

describe("loading an image", () => {
  const dir = tempDir("hermes-vision-");
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/cat.png") {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(makePng(4, 4));
      } else if (req.url === "/huge.png") {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.concat([pngHeader(100, 100), Buffer.alloc(MAX_IMAGE_BYTES + 10)]));
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("takes a path relative to the working directory, and a data URL", async () => {
    writeFileSync(join(dir, "pic.png"), makePng(5, 7));
    const byPath = await loadImage("pic.png", { cwd: dir });
    expect(byPath).toMatchObject({ ok: true, image: { mimeType: "image/png", width: 5, height: 7 } });
    const url = `data:image/png;base64,${makePng(2, 2).toString("base64")}`;
    const byData = await loadImage(url, { cwd: dir });
    expect(byData).toMatchObject({ ok: true, image: { width: 2, height: 2 } });
  });

  it("refuses files that are no image, or a header without its pixels, with the reason", async () => {
    writeFileSync(join(dir, "wide.png"), pngHeader(9000, 100));
    const wide = await loadImage(join(dir, "wide.png"), { cwd: "/" });
    expect(wide.ok).toBe(false);
    expect(wide.ok ? "" : wide.error).toMatch(
      /^Cannot use .*wide\.png: it could not be decoded as an image \(/,
    );
    writeFileSync(join(dir, "notes.txt"), "hello");
    const text = await loadImage("notes.txt", { cwd: dir });
    expect(text.ok ? "" : text.error).toContain("Cannot use notes.txt: it could not be decoded as an image");
    const missing = await loadImage("nope.png", { cwd: dir });
    expect(missing.ok ? "" : missing.error).toContain("Could not read nope.png");
  });

  it("fetches URLs through the SSRF guard: loopback refused unless private URLs are allowed", async () => {
    const refused = await loadImage(`${base}/cat.png`, { cwd: dir });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? "" : refused.error).toMatch(
      /Could not read http:\/\/127\.0\.0\.1:\d+\/cat\.png: .*(private|loopback)/i,
    );
    const allowed = await loadImage(`${base}/cat.png`, { cwd: dir, guard: { allowPrivate: true } });
    expect(allowed).toMatchObject({ ok: true, image: { width: 4, height: 4 } });
    const huge = await loadImage(`${base}/huge.png`, { cwd: dir, guard: { allowPrivate: true } });
    expect(huge.ok ? "" : huge.error).toContain(`over ${MAX_IMAGE_BYTES} bytes`);
  });
});

describe("the native route", () => {
  const service = (vision: boolean, carries: boolean): VisionService => ({
    mainTakesImages: () => vision,
    toolResultsCarryImages: () => carries,
    describe: async () => ({ ok: false, error: "unused" }),
  });
  const config = (native: string | boolean) => ({ ...structuredClone(DEFAULT_CONFIG), vision: { native } });

  it("follows the catalog on auto, the setting when forced, and never a protocol that drops tool images", () => {
    expect(attachNatively(config("auto"), service(true, true))).toBe(true);
    expect(attachNatively(config("auto"), service(false, true))).toBe(false);
    expect(attachNatively(config(false), service(true, true))).toBe(false);
    expect(attachNatively(config(true), service(false, true))).toBe(true);
    expect(attachNatively(config(true), service(true, false))).toBe(false);
    expect(attachNatively(config("auto"), undefined)).toBe(false);
  });
});
