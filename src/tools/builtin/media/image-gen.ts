/**
 * Image generation backends behind one interface: OpenAI's images API and FAL's synchronous HTTP
 * API. The user picks the backend (`image_gen.provider`), never the model.
 */
import { hasKey, httpFailure, type MediaEnv } from "./cache-file.js";

export const ASPECT_RATIOS = ["square", "landscape", "portrait"] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

export interface GeneratedImage {
  data: Buffer;
  ext: string;
  model: string;
}

export interface ImageBackend {
  name: "openai" | "fal";
  generate(prompt: string, aspect: AspectRatio, signal?: AbortSignal): Promise<GeneratedImage>;
}

export interface ImageGenSettings {
  provider: string;
  model: string;
  openai_base_url: string;
  fal_base_url: string;
}

const OPENAI_SIZES: Record<AspectRatio, string> = {
  square: "1024x1024",
  landscape: "1536x1024",
  portrait: "1024x1536",
};
const FAL_SIZES: Record<AspectRatio, string> = {
  square: "square_hd",
  landscape: "landscape_16_9",
  portrait: "portrait_16_9",
};

const trimSlash = (url: string): string => url.replace(/\/+$/, "");

function openaiBackend(key: string, settings: ImageGenSettings): ImageBackend {
  const base = trimSlash(settings.openai_base_url || "https://api.openai.com/v1");
  const model = settings.model || "gpt-image-1";
  return {
    name: "openai",
    async generate(prompt, aspect, signal) {
      const res = await fetch(`${base}/images/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model, prompt, size: OPENAI_SIZES[aspect], n: 1 }),
        ...(signal ? { signal } : {}),
      });
      if (!res.ok) throw await httpFailure("The OpenAI images API", res);
      const body = (await res.json()) as { data?: Array<{ b64_json?: string; url?: string }> };
      const first = body.data?.[0];
      if (first?.b64_json) return { data: Buffer.from(first.b64_json, "base64"), ext: "png", model };
      if (first?.url) return { ...(await download(first.url, signal)), model };
      throw new Error("The OpenAI images API returned no image.");
    },
  };
}

function falBackend(key: string, settings: ImageGenSettings): ImageBackend {
  const base = trimSlash(settings.fal_base_url || "https://fal.run");
  const model = settings.model || "fal-ai/flux/schnell";
  return {
    name: "fal",
    async generate(prompt, aspect, signal) {
      const res = await fetch(`${base}/${model}`, {
        method: "POST",
        headers: { authorization: `Key ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt, image_size: FAL_SIZES[aspect], num_images: 1 }),
        ...(signal ? { signal } : {}),
      });
      if (!res.ok) throw await httpFailure("FAL", res);
      const body = (await res.json()) as { images?: Array<{ url?: string }> };
      const url = body.images?.[0]?.url;
      if (!url) throw new Error("FAL returned no image.");
      return { ...(await download(url, signal)), model };
    },
  };
}

/** An image the backend serves by URL (FAL's CDN, some OpenAI models), or inline as a data URL. */
async function download(url: string, signal?: AbortSignal): Promise<{ data: Buffer; ext: string }> {
  const res = await fetch(url, signal ? { signal } : {});
  if (!res.ok) throw await httpFailure("The image download", res);
  const type = res.headers.get("content-type") ?? "";
  const ext = type.includes("jpeg") ? "jpg" : type.includes("webp") ? "webp" : "png";
  return { data: Buffer.from(await res.arrayBuffer()), ext };
}

/**
 * The configured backend when its key is set; with no provider configured, OpenAI then FAL,
 * whichever has a key. Undefined when none is usable.
 */
export function chooseImageBackend(settings: ImageGenSettings, env: MediaEnv): ImageBackend | undefined {
  const wanted = settings.provider.trim().toLowerCase();
  const openai = () =>
    hasKey(env, "OPENAI_API_KEY") ? openaiBackend(env.OPENAI_API_KEY!.trim(), settings) : undefined;
  const fal = () => (hasKey(env, "FAL_KEY") ? falBackend(env.FAL_KEY!.trim(), settings) : undefined);
  if (wanted === "openai") return openai();
  if (wanted === "fal") return fal();
  if (wanted) return undefined;
  return openai() ?? fal();
}
