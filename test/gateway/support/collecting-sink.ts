import type { InboundMessage, InboundReceipt, InboundSink } from "../../../src/gateway/types.js";

/**
 * A sink for adapter tests without a gateway: it takes every update (fetching its files, as the
 * gateway does for a sender it lets in) and keeps it in `received`.
 */
export function collectingSink(received: InboundMessage[]): InboundSink {
  return async (m, fetchAttachments): Promise<InboundReceipt> => {
    if (!fetchAttachments) {
      received.push(m);
      return { status: "accepted" };
    }
    const { attachments, notes } = await fetchAttachments();
    const text = [m.text, ...notes].filter((t) => t !== "").join("\n");
    received.push({ ...m, text, ...(attachments.length > 0 ? { attachments } : {}) });
    return { status: "accepted" };
  };
}

/**
 * A collecting sink that cannot record the first `refusals` updates (as when state.db is locked):
 * it answers them `unavailable`, and counts every hand-over in `handed`.
 */
export function refusingSink(
  received: InboundMessage[],
  refusals: number,
): InboundSink & { handed: string[] } {
  const collect = collectingSink(received);
  const handed: string[] = [];
  let left = refusals;
  const sink = async (...args: Parameters<InboundSink>): Promise<InboundReceipt> => {
    handed.push(args[0].updateId);
    if (left-- > 0) return { status: "unavailable", retryAfterSeconds: 1, reason: "state.db is locked" };
    return collect(...args);
  };
  return Object.assign(sink, { handed });
}
