import { describe, expect, it } from "vitest";
import { AgentPool } from "../../src/gateway/agent-pool.js";
import { isControlCommand, parseCommand } from "../../src/gateway/control-commands.js";
import { Lanes } from "../../src/gateway/lanes.js";
import { lastDailyBoundary, shouldReset } from "../../src/gateway/reset-policy.js";
import { sessionKeyOf } from "../../src/gateway/session-key.js";
import { userMessageText } from "../../src/gateway/turn.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { text, useRuntime } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";

const shared = { groupSessionsPerUser: true, threadSessionsPerUser: false };

describe("session keys", () => {
  it("keys DMs by chat (and thread), or by sender without a chat id", () => {
    const dm = { platform: "telegram", chatType: "dm" as const, chatId: "42", userId: "7" };
    expect(sessionKeyOf(dm, shared)).toBe("agent:main:telegram:dm:42");
    expect(sessionKeyOf({ ...dm, threadId: "3" }, shared)).toBe("agent:main:telegram:dm:42:3");
    expect(sessionKeyOf({ ...dm, chatId: "" }, shared)).toBe("agent:main:telegram:dm:7");
  });

  it("keys groups per participant by default; threads are shared unless thread_sessions_per_user", () => {
    const group = { platform: "telegram", chatType: "group" as const, chatId: "-100", userId: "7" };
    expect(sessionKeyOf(group, shared)).toBe("agent:main:telegram:group:-100:7");
    expect(sessionKeyOf(group, { ...shared, groupSessionsPerUser: false })).toBe(
      "agent:main:telegram:group:-100",
    );
    expect(sessionKeyOf({ ...group, threadId: "9" }, shared)).toBe("agent:main:telegram:group:-100:9");
    expect(sessionKeyOf({ ...group, threadId: "9" }, { ...shared, threadSessionsPerUser: true })).toBe(
      "agent:main:telegram:group:-100:9:7",
    );
    expect(sessionKeyOf({ ...group, chatType: "channel" }, shared)).toBe(
      "agent:main:telegram:channel:-100:7",
    );
  });
});

describe("reset policy", () => {
  const at = (iso: string): number => new Date(iso).getTime();

  it("idle: after idle_minutes of silence", () => {
    const s = { mode: "idle", idle_minutes: 60, at_hour: 4 };
    expect(shouldReset(s, at("2030-01-01T10:00:00"), at("2030-01-01T10:59:00"))).toBe(false);
    expect(shouldReset(s, at("2030-01-01T10:00:00"), at("2030-01-01T11:00:00"))).toBe(true);
  });

  it("daily: when the local at_hour passed since the last message; both: either", () => {
    const s = { mode: "daily", idle_minutes: 60, at_hour: 4 };
    expect(shouldReset(s, at("2030-01-01T03:00:00"), at("2030-01-01T03:59:00"))).toBe(false);
    expect(shouldReset(s, at("2030-01-01T03:00:00"), at("2030-01-01T04:01:00"))).toBe(true);
    expect(shouldReset(s, at("2030-01-01T05:00:00"), at("2030-01-02T03:00:00"))).toBe(false);
    expect(lastDailyBoundary(at("2030-01-02T03:00:00"), 4)).toBe(at("2030-01-01T04:00:00"));
    const both = { ...s, mode: "both" };
    expect(shouldReset(both, at("2030-01-01T05:00:00"), at("2030-01-01T06:30:00"))).toBe(true);
  });

  it("none or an unknown mode never resets", () => {
    expect(shouldReset({ mode: "none", idle_minutes: 1, at_hour: 4 }, 0, Date.now())).toBe(false);
    expect(shouldReset({ mode: "hourly", idle_minutes: 1, at_hour: 4 }, 0, Date.now())).toBe(false);
  });
});

describe("lanes", () => {
  it("runs one key's jobs in order and different keys in parallel", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    const gate = Promise.withResolvers<void>();
    lanes.enqueue("a", async () => {
      log.push("a1 start");
      await gate.promise;
      log.push("a1 end");
    });
    lanes.enqueue("a", async () => {
      log.push("a2");
    });
    lanes.enqueue("b", async () => {
      log.push("b1");
    });
    await lanes.whenIdle("b");
    expect(log).toEqual(["a1 start", "b1"]);
    expect(lanes.status()).toEqual([{ key: "a", running: true, queued: 1 }]);
    gate.resolve();
    await lanes.allIdle();
    expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
    expect(lanes.size).toBe(0);
  });

  it("drops queued jobs on clear, telling each; a throwing job does not stop the lane", async () => {
    const errors: unknown[] = [];
    const lanes = new Lanes((_key, err) => errors.push(err));
    const dropped: string[] = [];
    const ran: string[] = [];
    const gate = Promise.withResolvers<void>();
    lanes.enqueue("k", async () => {
      await gate.promise;
      throw new Error("boom");
    });
    lanes.enqueue(
      "k",
      async () => void ran.push("x"),
      "x",
      () => dropped.push("x"),
    );
    expect(lanes.clear("k")).toBe(1);
    lanes.enqueue("k", async () => void ran.push("y"));
    gate.resolve();
    await lanes.allIdle();
    expect(dropped).toEqual(["x"]);
    expect(ran).toEqual(["y"]);
    expect(String(errors[0])).toContain("boom");
  });
});

describe("agent pool", () => {
  const h = useRuntime();

  it("keeps at most maxLive agents, never evicting one in use, and closes idle ones after the TTL", async () => {
    const { runtime } = h.start();
    let clock = 1_000_000;
    const evicted: string[] = [];
    const pool = new AgentPool({
      maxLive: 2,
      idleTtlMs: 60_000,
      now: () => clock,
      onEvict: (key, _agent, reason) => evicted.push(`${key}:${reason}`),
    });
    const make = () => runtime.newAgent(() => undefined);
    const a = pool.lease("a", make);
    pool.lease("b", make).release();
    pool.lease("c", make).release();
    // "a" is the least recently used but leased: "b" goes instead.
    expect(evicted).toEqual(["b:lru"]);
    expect(pool.size).toBe(2);
    a.release();
    expect(pool.lease("a", make).agent).toBe(a.agent);
    clock += 61_000;
    pool.sweep();
    await pool.settled();
    expect(evicted).toEqual(["b:lru", "c:idle"]);
    expect(pool.size).toBe(1);
    await pool.closeAll();
    expect(pool.size).toBe(0);
    expect(runtime.openSessionCount()).toBe(0);
  });
});

describe("agent pool and background work", () => {
  const h = useRuntime();

  it("never closes an agent whose background delegation still works, idle or least recently used", async () => {
    const t = h.start("toolsets: [delegation]\n");
    let childAsked!: () => void;
    const childStarted = new Promise<void>((resolve) => {
      childAsked = resolve;
    });
    h.fake.setResponder((req) => {
      if (text(messagesOf(req)[0]).includes("## Your task")) {
        childAsked();
        return { fault: { kind: "hang" } };
      }
      if (!messagesOf(req).some((m) => m.role === "tool"))
        return {
          toolCalls: [{ name: "delegate_task", arguments: { goal: "long survey", background: true } }],
        };
      return { text: "Started." };
    });
    let clock = 1_000_000;
    const evicted: string[] = [];
    const pool = new AgentPool({
      maxLive: 1,
      idleTtlMs: 60_000,
      now: () => clock,
      onEvict: (key, _agent, reason) => evicted.push(`${key}:${reason}`),
    });
    const make = () => t.runtime.newAgent(() => undefined);
    const worker = pool.lease("worker", make);
    await worker.agent.runConversation("survey in the background");
    worker.release();
    await childStarted;
    expect(worker.agent.backgroundWork).toBe(1);
    // Over the limit, the least recently used is "worker", but its delegation runs: "other" goes.
    pool.lease("other", make).release();
    expect(evicted).toEqual(["other:lru"]);
    // Past the idle time too, "worker" stays while its delegation works.
    clock += 61_000;
    pool.sweep();
    expect(evicted).toEqual(["other:lru"]);
    expect(pool.lease("worker", make).agent).toBe(worker.agent);
    await pool.closeAll();
  });
});

describe("user messages and commands", () => {
  const base: InboundMessage = {
    platform: "telegram",
    updateId: "1",
    chatId: "g",
    chatType: "group",
    userId: "7",
    text: "hello",
    receivedAt: 0,
  };

  it("prefixes the sender in groups and lists attachments", () => {
    expect(userMessageText({ ...base, userName: "Alice" })).toBe("[Alice] hello");
    expect(userMessageText({ ...base, userHandle: "al" })).toBe("[@al] hello");
    expect(userMessageText({ ...base, chatType: "dm" })).toBe("hello");
    expect(
      userMessageText({
        ...base,
        chatType: "dm",
        text: "",
        attachments: [{ kind: "voice", path: "/v.ogg" }],
      }),
    ).toBe("The user sent a voice message: /v.ogg");
  });

  it("parses /commands, with the @bot suffix groups use", () => {
    expect(parseCommand("/stop")).toEqual({ name: "stop", args: "" });
    expect(parseCommand("/Model@HermesBot  gpt-x ")).toEqual({ name: "model", args: "gpt-x" });
    expect(parseCommand("not a /command")).toBeUndefined();
    expect(isControlCommand("approve")).toBe(true);
    expect(isControlCommand("haiku-writer")).toBe(false);
  });
});
