import { describe, expect, it } from "vitest";
import { lastUser, text } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { useGateway } from "./support/gateway.js";

const g = useGateway();

const requestFor = (requests: RecordedRequest[], key: string): RecordedRequest | undefined =>
  requests.find((r) => lastUser(r).includes(key));

const historyOf = (r: RecordedRequest | undefined): string[] => (r ? messagesOf(r).map((m) => text(m)) : []);

describe("gateway runner: lanes and busy chats", () => {
  it("/stop interrupts a running turn, and the chat goes on afterwards", async () => {
    const gw = await g.start();
    g.fake.setResponder((req) =>
      lastUser(req).includes("think forever") ? { fault: { kind: "hang" } } : { text: "back to normal" },
    );
    const slow = await gw.adapter.say("think forever");
    await gw.adapter.waitFor(() => g.fake.requests.length === 1, "the model call");
    await gw.adapter.say("/stop");
    await gw.adapter.waitForText("⏹ Stopped.");
    expect(gw.adapter.texts()).toContain("⏹ Stopping.");
    expect(gw.ledger.inboundStatus(slow.platform, slow.updateId)).toBe("done");
    await gw.adapter.say("are you there?");
    await gw.adapter.waitForText("back to normal");
  });

  it("runs two chats in parallel while one chat's messages run in order", async () => {
    const gw = await g.start();
    g.fake.setResponder((req) => {
      const user = lastUser(req);
      if (user.includes("A-first")) return { text: "answer A-first", delayMs: 1_500 };
      if (user.includes("A-second")) return { text: "answer A-second" };
      return { text: "answer B" };
    });
    await gw.adapter.say("A-first", { userId: "u1" });
    await gw.adapter.say("A-second", { userId: "u1" });
    await gw.adapter.waitFor(() => g.fake.requests.length === 1, "A-first's model call");
    await gw.adapter.say("B-only", { userId: "u2" });
    await gw.adapter.waitForText("answer A-second");

    // Chat B was answered while chat A's first turn still ran: lanes of different chats do not wait.
    const order = gw.adapter.messages.map((m) => m.text);
    expect(order.findIndex((t) => t.includes("answer B"))).toBeLessThan(
      order.findIndex((t) => t.includes("answer A-first")),
    );
    // A's second message ran after its first had finished: its request carries the first exchange.
    const second = requestFor(g.fake.requests, "A-second");
    expect(historyOf(second)).toEqual(expect.arrayContaining(["A-first", "answer A-first", "A-second"]));
    // ...and nothing of chat B leaked into chat A's conversation.
    expect(historyOf(second).some((t) => t.includes("B-only"))).toBe(false);
    expect(gw.adapter.texts("c-u2")).toEqual(["answer B"]);
  });

  it("busy_mode interrupt: a new message stops the running turn and runs next", async () => {
    const gw = await g.start("gateway:\n  busy_mode: interrupt\n");
    g.fake.setResponder((req) =>
      lastUser(req).includes("long job")
        ? { fault: { kind: "hang" } }
        : { text: "switched to the new request" },
    );
    await gw.adapter.say("long job");
    await gw.adapter.waitFor(() => g.fake.requests.length === 1, "the first model call");
    await gw.adapter.say("never mind, do this");
    await gw.adapter.waitForText("switched to the new request");
    expect(gw.adapter.texts()).toContain("⏹ Stopped.");
    expect(historyOf(requestFor(g.fake.requests, "never mind"))).toContain("long job");
  });

  it("busy_mode steer: a message while a tool runs rides on the tool's result", async () => {
    const gw = await g.start("gateway:\n  busy_mode: steer\n");
    let toolRequests = 0;
    g.fake.setResponder((req) => {
      if (!messagesOf(req).some((m) => m.role === "tool")) {
        toolRequests += 1;
        return { toolCalls: [{ name: "terminal", arguments: { command: "sleep 1.5 && echo slept" } }] };
      }
      return { text: "finished the job" };
    });
    await gw.adapter.say("run the slow command");
    await gw.adapter.waitFor(() => toolRequests === 1, "the tool call");
    await gw.adapter.say("also mention bananas");
    await gw.adapter.waitForText("finished the job");
    expect(gw.adapter.texts().some((t) => t.startsWith("↪ Noted"))).toBe(true);
    // One turn only: the steer did not become a turn of its own, it reached the model mid-turn.
    expect(g.fake.requests).toHaveLength(2);
    expect(JSON.stringify(messagesOf(g.fake.requests[1]!))).toContain("also mention bananas");
  });

  it("busy_mode queue (default) and /queue: messages wait and run in order", async () => {
    const gw = await g.start();
    g.fake.setResponder((req) => {
      const user = lastUser(req);
      if (user.includes("first")) return { text: "done first", delayMs: 600 };
      return { text: `done ${user}` };
    });
    await gw.adapter.say("first");
    await gw.adapter.waitFor(() => g.fake.requests.length === 1, "the first call");
    await gw.adapter.say("/queue later one");
    await gw.adapter.say("second");
    await gw.adapter.waitForText("done second");
    const users = g.fake.requests.map((r) => lastUser(r));
    expect(users).toEqual(["first", "later one", "second"]);
    expect(gw.adapter.texts().some((t) => t.startsWith("Queued"))).toBe(true);
  });

  it("/status shows the model, the session and what runs and waits", async () => {
    const gw = await g.start();
    g.fake.setResponder((req) =>
      lastUser(req).includes("slow") ? { fault: { kind: "hang" } } : { text: "ok" },
    );
    await gw.adapter.say("slow thing");
    await gw.adapter.waitFor(() => g.fake.requests.length === 1, "the model call");
    await gw.adapter.say("queued thing");
    await gw.adapter.say("/status");
    await gw.adapter.waitForText("Running: yes");
    const status = gw.adapter.texts().find((t) => t.includes("Running: yes"))!;
    expect(status).toContain("Model: test-model");
    expect(status).toContain("Queued: 1");
    expect(status).toContain(`Session: ${gw.routing.get(gw.dmKey())!.sessionId}`);
    expect(gw.runner.status().lanes).toEqual([{ key: gw.dmKey(), running: true, queued: 1 }]);
    await gw.adapter.say("/stop");
    await gw.adapter.waitForText("Dropped 1 queued message");
  });
});
