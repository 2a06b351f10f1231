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
