/**
 * `vision_analyze`: looks at an image (path, URL or data URL). A main model that takes images gets
 * the image itself, attached to the tool result; otherwise the auxiliary vision model describes it
 * and the description comes back as text.
 */
import { DEFAULT_CONFIG, type HermesConfig } from "../../core/config.js";
import type { ChatMessage } from "../../llm/types.js";
import type { ToolContext } from "../context.js";
import type { ToolRegistration } from "../registry.js";
import type { ToolResult } from "../result.js";
import { textBlock } from "../result.js";
import { scopeRefusal } from "./files/scope-guard.js";
import {
  DEFAULT_IMAGE_LIMITS,
  type ImageLimits,
  imageLimitsFor,
  type PreparedImage,
} from "./media/image-prepare.js";
import { dataUrl, type LoadedImage, loadImage } from "./media/image-source.js";
import { argString, toolError, toolResult } from "./util.js";
import { guardOptionsFromSecurity } from "./web/website-policy.js";

/**
 * What vision needs from the run, which owns the model clients. `describe` asks the auxiliary
 * vision model and never throws.
 */
export interface VisionService {
  /** The main model takes image input (from the model catalog). */
  mainTakesImages(): boolean;
  /** The main model's protocol carries images in tool results (chat completions carries text only). */
  toolResultsCarryImages(): boolean;
  /** The main model's wire protocol, which sets the image size limits of the native route. */
  mainApiMode?(): string;
  describe(
    messages: ChatMessage[],
    signal?: AbortSignal,
  ): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
}

/**
 * `vision.native`: true and false force a route; anything else asks the catalog. A protocol whose
 * tool results carry text only never gets the image natively: it would be dropped on the way.
 */
export function attachNatively(
  config: HermesConfig | undefined,
  service: VisionService | undefined,
): boolean {
  if (service && !service.toolResultsCarryImages()) return false;
  const setting = (config?.vision ?? DEFAULT_CONFIG.vision).native;
  if (setting === true || setting === "true") return true;
  if (setting === false || setting === "false") return false;
  return service?.mainTakesImages() ?? false;
}

/** Which route an image takes and the limits it is prepared to. */
export interface VisionRoute {
  /** Attached to the tool result for the main model (see `attachNatively`). */
  native: boolean;
  limits: ImageLimits;
}

export function visionRoute(
  config: HermesConfig | undefined,
  service: VisionService | undefined,
): VisionRoute {
  const native = attachNatively(config, service);
  // The auxiliary model's provider is not known here: its images get the strictest limits.
  return { native, limits: native ? imageLimitsFor(service?.mainApiMode?.()) : DEFAULT_IMAGE_LIMITS };
}

/** The native route's result: `fields` as JSON text, then the image itself. */
export function attachedImageResult(
  fields: Record<string, unknown>,
  image: { mimeType: string; data: Buffer },
): ToolResult {
  return {
    content: [
      textBlock(toolResult(fields)),
      { type: "image", mimeType: image.mimeType, data: image.data.toString("base64") },
    ],
  };
}

/** "1568x1045 JPEG from photo.png (scaled down from 6000x4000)": what the model is told of an image. */
export const imageLabel = (image: PreparedImage, source: string): string =>
  `${image.width}x${image.height} ${image.mimeType.slice(6).toUpperCase()} from ${source}` +
  (image.scaledFrom ? ` (scaled down from ${image.scaledFrom.width}x${image.scaledFrom.height})` : "");

const describeLabel = (image: LoadedImage): string => imageLabel(image, image.source);

/** One user message asking the vision model `question` about `image`. */
function askMessages(image: LoadedImage, question: string): ChatMessage[] {
  return [
    {
      role: "user",
      content: [
        { type: "text", text: `Answer precisely from what the image shows.\n\nQuestion: ${question}` },
        { type: "image_url", image_url: { url: dataUrl(image) } },
      ],
    },
  ];
}

const NO_VISION =
  "No vision model is available: the main model takes no images and no auxiliary vision model is set.";

const loadOptions = (ctx: ToolContext, limits: ImageLimits) => ({
  cwd: ctx.env.getCwd(),
  guard: guardOptionsFromSecurity(ctx.config.security, ctx.home),
  signal: ctx.signal,
  limits,
});

export function visionRegistration(
  config: HermesConfig | undefined,
  service: VisionService | undefined,
): ToolRegistration<ToolContext> {
  return {
    name: "vision_analyze",
    toolset: "vision",
    emoji: "👁️",
    parallelSafe: true,
    schema: {
      description: "Answer a question about an image (file path, http(s) URL or data URL).",
      parameters: {
        type: "object",
        properties: {
          image_url: { type: "string" },
          question: { type: "string" },
        },
        required: ["image_url", "question"],
      },
    },
    checkFn: () => service !== undefined || attachNatively(config, service),
    handler: async (args, ctx): Promise<ToolResult | string> => {
      const source = argString(args, "image_url")?.trim();
      const question = argString(args, "question")?.trim();
      if (!source) return toolError("image_url is required");
      if (!question) return toolError("question is required");
      const { native, limits } = visionRoute(ctx.config, service);
      if (!native && !service) return toolError(NO_VISION);
      // A chat user's image paths are theirs only (the file tools' rule).
      if (!/^(?:data:|https?:\/\/)/i.test(source)) {
        const path = ctx.env.resolvePath(source.replace(/^file:\/\//, ""));
        const refused = await scopeRefusal(ctx, path, "read");
        if (refused) return toolError(refused);
      }
      const loaded = await loadImage(source, loadOptions(ctx, limits));
      if (!loaded.ok) return toolError(loaded.error);
      const image = loaded.image;
      if (native)
        return attachedImageResult(
          {
            success: true,
            image: describeLabel(image),
            note: `The image is attached below. Answer from it: ${question}`,
          },
          image,
        );
      if (!service) return toolError(NO_VISION);
      const answer = await service.describe(askMessages(image, question), ctx.signal);
      if (!answer.ok) return toolError(`The vision model could not answer: ${answer.error}`);
      return toolResult({ success: true, image: describeLabel(image), analysis: answer.text });
    },
  };
}
