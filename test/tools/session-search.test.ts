import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../src/runtime/recorder.js";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import { handleSessionSearch } from "../../src/tools/builtin/session-search.js";
import type { SessionSearchService, ToolContext } from "../../src/tools/context.js";
import { tempDir } from "../support/temp.js";

let store: SqliteSessionStore;
afterEach(async () => {
  await store?.close();
});

function setup(): ToolContext {
  store = new SqliteSessionStore(join(tempDir("hermes-ss-"), "state.db"));
  store.createSession({ id: "old", source: "cli", title: "db work", startedAt: 1000 });
  store.createSession({ id: "cur", source: "cli", startedAt: 2000 });
  for (let i = 0; i < 6; i++)
    store.appendMessage("old", {
      role: i % 2 ? "assistant" : "user",
      content: `step ${i} postgres vacuum ${"x".repeat(i === 3 ? 2000 : 0)}`,
    });
  store.appendMessage("cur", { role: "user", content: "postgres again" });
  return {
    sessionId: "cur",
    sessions: {
      search: (o) => store.search(o),
      around: (id, m, w) => store.messagesAround(id, m, w),
      getSession: (id) => store.getSession(id),
    } satisfies SessionSearchService,
  } as unknown as ToolContext;
}

describe("session_search", () => {
  it("finds past sessions, excludes the current one unless asked, filters roles, caps output", () => {
    const ctx = setup();
    const r = JSON.parse(handleSessionSearch({ query: "postgres", limit: 3 }, ctx));
    expect(r.count).toBe(3);
    expect(r.results.every((h: { session_id: string }) => h.session_id === "old")).toBe(true);
    expect(r.results[0].title).toBe("db work");
    const all = JSON.parse(
      handleSessionSearch({ query: "postgres", include_current: true, sort: "recency" }, ctx),
    );
    expect(all.results[0].session_id).toBe("cur");
    const users = JSON.parse(handleSessionSearch({ query: "vacuum", role: "assistant" }, ctx));
    expect(users.results.map((h: { role: string }) => h.role)).toEqual([
      "assistant",
      "assistant",
      "assistant",
    ]);
    expect(JSON.parse(handleSessionSearch({ query: "nothing-like-this" }, ctx)).note).toContain("No matches");
  });

  it("scrolls around a message with a window and clips long texts", () => {
    const ctx = setup();
    const msgs = store.loadMessages("old");
    const r = JSON.parse(
      handleSessionSearch({ session_id: "old", around_message_id: msgs[3]!.id, window: 1 }, ctx),
    );
    expect(r.messages.map((m: { message_id: number }) => m.message_id)).toEqual([
      msgs[2]!.id,
      msgs[3]!.id,
      msgs[4]!.id,
    ]);
    expect(r.messages[1].hit).toBe(true);
    expect(r.messages[1].text.length).toBeLessThanOrEqual(401);
    expect(JSON.parse(handleSessionSearch({ around_message_id: 1 }, ctx)).error).toContain("session_id");
  });

  it("explains when there is no store", () => {
    expect(
      JSON.parse(handleSessionSearch({ query: "x" }, { sessionId: "s" } as ToolContext)).error,
    ).toContain("not available");
  });
});

describe("SessionRecorder", () => {
  it("creates the row on the first message with the system prompt and a title set earlier", async () => {
    store = new SqliteSessionStore(join(tempDir("hermes-rec-"), "state.db"));
    const warnings: string[] = [];
    const rec = new SessionRecorder(store, {
      sessionId: "s",
      source: "cli",
      model: "m",
      provider: "p",
      cwd: "/w",
      resumed: false,
      messages: () => [{ role: "system", content: "SYS" }],
      onFailure: (m) => warnings.push(m),
    });
    rec.setTitle("early");
    expect(store.getSession("s")).toBeUndefined();
    rec.handle({ type: "message", message: { role: "user", content: "hi" } });
    expect(store.getSession("s")).toMatchObject({ title: "early", systemPrompt: "SYS", messageCount: 1 });
    await store.close();
    rec.handle({ type: "message", message: { role: "user", content: "after close" } });
    expect(warnings[0]).toContain("could not be saved");
  });
});
