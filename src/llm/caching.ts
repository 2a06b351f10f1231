/**
 * Anthropic prompt caching, layout "system_and_3" (seed 004 §8): four breakpoints, one on the
 * system prompt and one on each of the last three non-system messages, all with the same TTL.
 * Because earlier turns are never rewritten, each request re-reads the prefix cached by the last.
 */

export type CacheTtl = "5m" | "1h";

export interface CacheMarker {
  type: "ephemeral";
  ttl?: "1h";
}

/** Anything with a `type` field: an Anthropic content block or system text block. */
export interface BlockLike {
  type: string;
}

export interface MessageLike<B extends BlockLike> {
  role: string;
  content: string | B[];
}

/** Blocks that may not carry cache_control: the marker goes on the block before them. */
const UNCACHEABLE = new Set(["thinking", "redacted_thinking"]);

export function cacheMarker(ttl: CacheTtl | undefined): CacheMarker {
  return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

/**
 * Returns copies of `system` and `messages` with cache_control markers placed per system_and_3.
 * String message content becomes a one-element text-block list so it can carry the marker. Pure:
 * inputs are not mutated (marked blocks and messages are shallow copies).
 */
export function applyAnthropicCacheControl<
  S extends BlockLike,
  B extends BlockLike,
  M extends MessageLike<B>,
>(system: readonly S[], messages: readonly M[], ttl: CacheTtl | undefined): { system: S[]; messages: M[] } {
  const marker = cacheMarker(ttl);
  const outSystem = [...system];
  const lastSystem = outSystem.length - 1;
  if (lastSystem >= 0) outSystem[lastSystem] = { ...outSystem[lastSystem]!, cache_control: { ...marker } };

  const outMessages = [...messages];
  const nonSystem: number[] = [];
  outMessages.forEach((m, i) => {
    if (m.role !== "system") nonSystem.push(i);
  });
  for (const i of nonSystem.slice(-3)) outMessages[i] = markMessage(outMessages[i]!, marker);
  return { system: outSystem, messages: outMessages };
}

function markMessage<B extends BlockLike, M extends MessageLike<B>>(message: M, marker: CacheMarker): M {
  if (typeof message.content === "string") {
    // Anthropic rejects cache_control on empty text blocks; an empty message has nothing to cache.
    if (message.content === "") return message;
    const block = { type: "text", text: message.content, cache_control: { ...marker } };
    return { ...message, content: [block as unknown as B] };
  }
  const blocks = [...message.content];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (UNCACHEABLE.has(block.type)) continue;
    blocks[i] = { ...block, cache_control: { ...marker } };
    return { ...message, content: blocks };
  }
  return message;
}
