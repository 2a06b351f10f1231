import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { lastUser, text, useRuntime } from "./support.js";

const h = useRuntime();

/** A subagent's request: its system prompt states its task. */
const isChild = (req: RecordedRequest): boolean => text(messagesOf(req)[0]).includes("## Your task");

const subagentEnd = (events: AgentEvent[]) =>
  events.find(
    (e): e is Extract<AgentEvent, { type: "subagent" }> => e.type === "subagent" && e.phase === "end",
  );

describe("agent lifecycle in the runtime", () => {
  it("close() stops a background delegation and ends both stored sessions", async () => {
    const t = h.start("toolsets: [delegation, terminal]\n");
    let childAsked!: () => void;
    const childStarted = new Promise<void>((resolve) => {
      childAsked = resolve;
    });
    h.fake.setResponder((req) => {
      if (isChild(req)) {
        childAsked();
        return { fault: { kind: "hang" } };
      }
      const answered = messagesOf(req).some((m) => m.role === "tool");
      if (!answered)
        return {
          toolCalls: [{ name: "delegate_task", arguments: { goal: "survey the repo", background: true } }],
        };
      return { text: "Started it in the background." };
    });
    const { runtime } = t;
    const events = t.listener("parent");
    const agent = runtime.newAgent(events);
    const result = await agent.runConversation("survey in the background please");
    expect(result.finalText).toBe("Started it in the background.");
    await childStarted;
    expect(runtime.openSessionCount()).toBe(2);

    await agent.close("closed");
    // The child was stopped (not left hanging on its model call) before close resolved.
    expect(subagentEnd(t.events.get("parent")!)?.status).toBe("interrupted");
    expect(runtime.openSessionCount()).toBe(0);
    const store = runtime.sessions!;
    const parentRow = store.getSession(agent.sessionId);
    expect(parentRow).toMatchObject({ endReason: "closed" });
    expect(parentRow?.endedAt).not.toBeNull();
    const child = store.listSessions().find((s) => s.parentSessionId === agent.sessionId);
    expect(child?.source).toBe("subagent");
    expect(child?.endedAt).not.toBeNull();
    // A closed agent takes no more requests; the runtime no longer knows its session.
    expect((await agent.runConversation("more")).error?.message).toBe("This session is closed");
    expect(runtime.setSessionTitle(agent.sessionId, "x")).toBe("this session is not being saved");
  });

  it("a chat user's subagent sessions are stored as that user's", async () => {
    const t = h.start("toolsets: [delegation, terminal]\n");
    h.fake.setResponder((req) => {
      if (isChild(req)) return { text: "child report" };
      const answered = messagesOf(req).some((m) => m.role === "tool");
      if (!answered) return { toolCalls: [{ name: "delegate_task", arguments: { goal: "look around" } }] };
      return { text: "done" };
    });
    const agent = t.runtime.newAgent(t.listener("parent"), {
      platform: "telegram",
      source: "telegram",
      owner: { userId: "u-42", chatId: "c-42", sessionKey: "agent:main:telegram:dm:c-42" },
    });
    expect((await agent.runConversation("delegate it")).finalText).toBe("done");
    await agent.close("closed");
    const store = t.runtime.sessions!;
    const child = store.listSessions().find((s) => s.parentSessionId === agent.sessionId);
    expect(child).toMatchObject({ source: "subagent", userId: "u-42" });
    expect(store.getSession(agent.sessionId)).toMatchObject({ userId: "u-42" });
  });

  it("dispose() ends every open session, and a session's rows say what ended it", async () => {
    const t = h.start("toolsets: [terminal]\n");
    h.fake.setResponder((req) => ({ text: `answer to ${lastUser(req)}` }));
    const { runtime } = t;
    const first = runtime.newAgent(t.listener("first"));
    await first.runConversation("one");
    const second = runtime.newAgent(t.listener("second"));
    await second.runConversation("two");
    await first.close("new_session");
    expect(runtime.openSessionCount()).toBe(1);
    const store = runtime.sessions!;
    await runtime.dispose();
    // dispose closed the store: read it again from disk.
    const { openStateStore } = await import("../../src/state/open.js");
    const opened = openStateStore(store.path);
    if (!("store" in opened)) throw opened.error;
    expect(opened.store.getSession(first.sessionId)?.endReason).toBe("new_session");
    expect(opened.store.getSession(second.sessionId)?.endReason).toBe("exit");
    await opened.store.close();
  });
});
