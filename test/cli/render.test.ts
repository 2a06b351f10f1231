/** The terminal renderer and withdrawn attempts: printed text cannot vanish, so it is marked. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { TerminalRenderer } from "../../src/cli/render.js";

function capture(isTTY: boolean) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  stream.isTTY = isTTY;
  let text = "";
  stream.on("data", (d: Buffer) => {
    text += d.toString();
  });
  return { stream, read: () => text };
}

function render(
  events: AgentEvent[],
  opts: { tty?: boolean; streamText?: boolean; reasoning?: boolean } = {},
) {
  const out = capture(opts.tty ?? false);
  const status = capture(opts.tty ?? false);
  const r = new TerminalRenderer({
    out: out.stream,
    status: status.stream,
    streamText: opts.streamText ?? true,
    showTools: true,
    showReasoning: opts.reasoning ?? false,
  });
  for (const e of events) r.handle(e);
  r.close();
  return { out: out.read(), status: status.read() };
}

const retried: AgentEvent[] = [
  { type: "text_delta", text: "The answer", attempt: 1 },
  { type: "text_delta", text: " is 4", attempt: 1 },
  { type: "attempt_discarded", attempt: 1, reason: "server_error" },
  { type: "status", kind: "retry", message: "server_error: HTTP 500 — retrying in 0.1s (retry 1 of 3)" },
  { type: "text_delta", text: "The answer is 42.", attempt: 2 },
  { type: "done", status: "completed", finalText: "The answer is 42." },
];

describe("TerminalRenderer: a withdrawn attempt", () => {
  it("closes the withdrawn text with a marker line; the retry's text starts on a line of its own", () => {
    const { out, status } = render(retried);
    expect(out).toBe("The answer is 4\n  [previous partial answer discarded]\nThe answer is 42.\n");
    expect(status).toContain("[retry] server_error");
  });

  it("on a terminal the marker is dim", () => {
    const { out } = render(retried, { tty: true });
    expect(out).toContain(
      "The answer is 4\n\x1b[2m  [previous partial answer discarded]\x1b[0m\nThe answer is 42.",
    );
  });

  it("shown reasoning of a withdrawn attempt is marked where it was shown", () => {
    const { status } = render(
      [
        { type: "reasoning_delta", text: "hmm", attempt: 1 },
        { type: "attempt_discarded", attempt: 1, reason: "timeout" },
      ],
      { reasoning: true },
    );
    expect(status).toBe("\x1b[2mhmm\x1b[0m\n  [previous partial answer discarded]\n");
  });

  it("nothing is marked when the withdrawn attempt showed nothing here", () => {
    // One-shot mode does not stream the answer; hidden reasoning was never shown either.
    const quiet = render(retried, { streamText: false });
    expect(quiet.out).toBe("");
    expect(quiet.status).not.toContain("discarded");
    const otherAttempt = render([
      { type: "text_delta", text: "kept", attempt: 2 },
      { type: "attempt_discarded", attempt: 1, reason: "timeout" },
    ]);
    expect(otherAttempt.out).toBe("kept");
  });

  it("attempt numbers of an earlier request do not match the next one's", () => {
    const { out } = render([
      { type: "text_delta", text: "first", attempt: 1 },
      { type: "done", status: "completed", finalText: "first" },
      { type: "reasoning_delta", text: "hidden", attempt: 1 },
      { type: "attempt_discarded", attempt: 1, reason: "timeout" },
    ]);
    expect(out).toBe("first\n");
  });
});
