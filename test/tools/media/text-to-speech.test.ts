import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HermesConfig } from "../../../src/core/config-defaults.js";
import { findExecutable } from "../../../src/tools/environments/shell-state.js";
import { createHarness, type ToolHarness } from "../helpers.js";
import { json, mediaTools, type StandIn, startStandIn } from "./stand-ins.js";

// Not a real MP3: the stand-in's bytes, which must reach the file unchanged.
const AUDIO = Buffer.from("ID3\x04\x00stand-in audio bytes", "latin1");

let openai: StandIn;
let h: ToolHarness;

beforeAll(async () => {
  openai = await startStandIn((req, res) => {
    if (req.path !== "/v1/audio/speech" || req.headers.authorization !== "Bearer sk-test")
      return json(res, 401, { error: { message: "bad key" } });
    res.writeHead(200, { "content-type": "audio/mpeg" });
    res.end(AUDIO);
  });
  h = await createHarness();
});
afterAll(async () => {
  await h?.dispose();
  await openai?.close();
});

function tts(env: Record<string, string | undefined>, settings: Partial<HermesConfig["tts"]> = {}) {
  const config: HermesConfig = {
    ...h.ctx.config,
    tts: { provider: "", voice: "", openai_base_url: `${openai.url}/v1`, ...settings },
  };
  return mediaTools(h.ctx, config, env, "text_to_speech");
}

describe("text_to_speech", () => {
  it("is offered only with an OpenAI key or espeak-ng on PATH", async () => {
    expect(await tts({ PATH: "/nonexistent" }).registry.isAvailable("text_to_speech")).toBe(false);
    expect(
      await tts({ PATH: "/nonexistent", OPENAI_API_KEY: "sk-test" }).registry.isAvailable("text_to_speech"),
    ).toBe(true);
  });

  it("asks OpenAI's audio API and saves the MP3 under cache/audio", async () => {
    const r = await tts({ PATH: "/nonexistent", OPENAI_API_KEY: "sk-test" }, { voice: "nova" }).call({
      text: "Hello there.",
    });
    expect(r).toMatchObject({ success: true, backend: "openai" });
    expect(String(r.path)).toMatch(new RegExp(`^${join(h.home, "cache", "audio")}/audio_.*\\.mp3$`));
    expect(r.media).toBe(`MEDIA:${r.path}`);
    expect(readFileSync(String(r.path))).toEqual(AUDIO);
    expect(openai.requests.at(-1)!.body).toEqual({
      model: "gpt-4o-mini-tts",
      voice: "nova",
      input: "Hello there.",
      response_format: "mp3",
    });
  });

  it("reports the provider's error", async () => {
    const r = await tts({ PATH: "/nonexistent", OPENAI_API_KEY: "sk-wrong" }).call({ text: "Hi" });
    expect(r.error).toContain("The OpenAI audio API answered HTTP 401");
  });

  const espeak = findExecutable("espeak-ng");
  if (!espeak)
    console.log("skipping the espeak-ng case: espeak-ng is not on PATH (apt-get install espeak-ng)");
  it.skipIf(!espeak)("speaks with espeak-ng when there is no key, text passed on stdin", async () => {
    const text = "--help is not an option here; this sentence is spoken.";
    const r = await tts({ PATH: process.env.PATH }).call({ text });
    expect(r).toMatchObject({ success: true, backend: "espeak" });
    expect(String(r.path)).toMatch(/\.wav$/);
    const wav = readFileSync(String(r.path));
    expect(wav.toString("latin1", 0, 4)).toBe("RIFF");
    expect(wav.toString("latin1", 8, 12)).toBe("WAVE");
    // A spoken sentence is at least a second of 22 kHz 16-bit audio.
    expect(wav.length).toBeGreaterThan(44_100);
  });
});
