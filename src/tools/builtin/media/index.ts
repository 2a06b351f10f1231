/**
 * `image_generate` (toolset image_gen) and `text_to_speech` (toolset tts): each offered only when
 * a backend is usable, each saving its file under HERMES_HOME/cache/ and returning the path.
 */
import { DEFAULT_CONFIG, type HermesConfig } from "../../../core/config.js";
import type { HermesToolRegistry, ToolContext } from "../../context.js";
import type { ToolRegistration } from "../../registry.js";
import { argString, toolError, toolResult } from "../util.js";
import { type MediaEnv, saveToCache } from "./cache-file.js";
import { ASPECT_RATIOS, type AspectRatio, chooseImageBackend } from "./image-gen.js";
import { chooseSpeechBackend } from "./tts.js";

export interface MediaToolOptions {
  /** Keys and PATH (default: process.env, read on every check and call). */
  env?: MediaEnv;
}

/** Characters of text one text_to_speech call takes. */
const MAX_TTS_CHARS = 4000;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function imageGenerateRegistration(
  startup: HermesConfig | undefined,
  opts: MediaToolOptions = {},
): ToolRegistration<ToolContext> {
  const env = (): MediaEnv => opts.env ?? process.env;
  return {
    name: "image_generate",
    toolset: "image_gen",
    emoji: "🎨",
    parallelSafe: true,
    requiresEnv: ["OPENAI_API_KEY", "FAL_KEY"],
    schema: {
      description: "Generate an image from a prompt; returns the saved file's path.",
      parameters: {
        type: "object",
        properties: {
          prompt: { type: "string" },
          aspect_ratio: { type: "string", enum: [...ASPECT_RATIOS] },
        },
        required: ["prompt"],
      },
    },
    checkFn: () => chooseImageBackend((startup ?? DEFAULT_CONFIG).image_gen, env()) !== undefined,
    handler: async (args, ctx) => {
      const prompt = argString(args, "prompt")?.trim();
      if (!prompt) return toolError("prompt is required");
      const aspect = (argString(args, "aspect_ratio") ?? "square").trim().toLowerCase() as AspectRatio;
      if (!ASPECT_RATIOS.includes(aspect))
        return toolError(`aspect_ratio must be one of ${ASPECT_RATIOS.join(", ")}`);
      const backend = chooseImageBackend(ctx.config.image_gen, env());
      if (!backend) return toolError("No image backend is usable: set OPENAI_API_KEY or FAL_KEY.");
      try {
        const image = await backend.generate(prompt, aspect, ctx.signal);
        const path = await saveToCache(ctx.home, "images", image.ext, image.data);
        return toolResult({
          success: true,
          path,
          backend: backend.name,
          model: image.model,
          aspect_ratio: aspect,
        });
      } catch (err) {
        return toolError(`Image generation failed: ${errorText(err)}`, { backend: backend.name });
      }
    },
  };
}

export function textToSpeechRegistration(
  startup: HermesConfig | undefined,
  opts: MediaToolOptions = {},
): ToolRegistration<ToolContext> {
  const env = (): MediaEnv => opts.env ?? process.env;
  return {
    name: "text_to_speech",
    toolset: "tts",
    emoji: "🔊",
    parallelSafe: true,
    schema: {
      description: "Speak text aloud; returns the saved audio file's path.",
      parameters: {
        type: "object",
        properties: {
          text: { type: "string", description: `Up to ${MAX_TTS_CHARS} characters.` },
        },
        required: ["text"],
      },
    },
    checkFn: () => chooseSpeechBackend((startup ?? DEFAULT_CONFIG).tts, env()) !== undefined,
    handler: async (args, ctx) => {
      const text = argString(args, "text")?.trim();
      if (!text) return toolError("text is required");
      if (text.length > MAX_TTS_CHARS)
        return toolError(`text is ${text.length} characters; the limit is ${MAX_TTS_CHARS}`);
      const backend = chooseSpeechBackend(ctx.config.tts, env());
      if (!backend) return toolError("No speech backend is usable: set OPENAI_API_KEY or install espeak-ng.");
      try {
        const audio = await backend.synthesize(text, ctx.signal);
        const path = await saveToCache(ctx.home, "audio", audio.ext, audio.data);
        return toolResult({ success: true, path, backend: backend.name, media: `MEDIA:${path}` });
      } catch (err) {
        return toolError(`Speech synthesis failed: ${errorText(err)}`, { backend: backend.name });
      }
    },
  };
}

export function registerMediaTools(
  registry: HermesToolRegistry,
  config?: HermesConfig,
  opts: MediaToolOptions = {},
): void {
  registry.register(imageGenerateRegistration(config, opts));
  registry.register(textToSpeechRegistration(config, opts));
}
