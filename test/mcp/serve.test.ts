import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/open.js";
import { handleSessionSearch, SESSION_SEARCH_SCHEMA } from "../../src/tools/builtin/session-search.js";
import type { SessionSearchService, ToolContext } from "../../src/tools/context.js";
import { cleanEnv, runHermes, type Sandbox, sandbox } from "../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { callText, connectServe } from "./support.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const env = (box: Sandbox) =>
  cleanEnv({ HERMES_HOME: box.home, HOME: join(box.work, "..", "user-home"), OPENAI_API_KEY: "test-key" });

/** A profile with one stored conversation and some memory. */
async function profile(): Promise<Sandbox> {
  const box = sandbox(openaiConfig(fake, "agent:\n  api_max_retries: 0\napprovals:\n  mode: manual\n"));
  mkdirSync(join(box.work, "..", "user-home"), { recursive: true });
  fake.enqueue({ text: "Noted: the blue giraffe lives in Lisbon." });
  const r = await runHermes(["-z", "remember that the blue giraffe lives in Lisbon"], {
    env: env(box),
    cwd: box.work,
  });
  expect(r.code).toBe(0);
  mkdirSync(join(box.home, "memories"), { recursive: true });
  writeFileSync(join(box.home, "memories", "MEMORY.md"), "Project uses pnpm\n§\nTests run with vitest");
  writeFileSync(join(box.home, "memories", "USER.md"), "Prefers short answers");
  return box;
}

const connect = (box: Sandbox) => connectServe(env(box), box.work);

describe("hermes mcp serve, driven by the SDK's client", () => {
  it("offers the profile's sessions, search, memory and run_prompt", async () => {
    const box = await profile();
    const client = await connect(box);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "sessions_list",
      "session_search",
      "session_read",
      "memory_read",
      "run_prompt",
    ]);
    expect(tools.find((t) => t.name === "session_search")!.inputSchema).toEqual(
      SESSION_SEARCH_SCHEMA.parameters,
    );

    const listed = JSON.parse(callText(await client.callTool({ name: "sessions_list", arguments: {} })));
    expect(listed.count).toBe(1);
    const id = listed.sessions[0].session_id as string;

    const read = JSON.parse(
      callText(await client.callTool({ name: "session_read", arguments: { session_id: id } })),
    );
    expect(read.messages.map((m: { role: string; text: string }) => [m.role, m.text])).toEqual([
      ["user", "remember that the blue giraffe lives in Lisbon"],
      ["assistant", "Noted: the blue giraffe lives in Lisbon."],
    ]);

    const memory = JSON.parse(callText(await client.callTool({ name: "memory_read", arguments: {} })));
    expect(memory).toEqual({
      memory: ["Project uses pnpm", "Tests run with vitest"],
      user: ["Prefers short answers"],
    });
  });

  it("answers session_search exactly as the built-in tool does", async () => {
    const box = await profile();
    const client = await connect(box);
    const args = { query: "giraffe", sort: "recency" };
    const served = callText(await client.callTool({ name: "session_search", arguments: args }));
    const opened = openStateStore(join(box.home, "state.db"));
    if (!("store" in opened)) throw opened.error;
    const store = opened.store;
    const sessions: SessionSearchService = {
      search: (o) => store.search(o),
      around: (s, m, w) => store.messagesAround(s, m, w),
      getSession: (s) => store.getSession(s),
    };
    const builtin = handleSessionSearch(args, {
      sessionId: "",
      conversationSessionIds: [],
      sessions,
    } as unknown as ToolContext);
    store.close();
    expect(served).toBe(builtin);
    const parsed = JSON.parse(served);
    expect(parsed.count).toBe(2);
    expect(parsed.results[0].snippet).toContain("giraffe");

    const scrolled = await client.callTool({ name: "session_search", arguments: { around_message_id: 1 } });
    expect(scrolled.isError).toBe(true);
    expect(callText(scrolled)).toBe(JSON.stringify({ error: "around_message_id needs session_id" }));
  });

  it("run_prompt runs one prompt through a fresh agent of the profile; approvals are denied", async () => {
    const box = await profile();
    execFileSync("git", ["init", "-q"], { cwd: box.work });
    const client = await connect(box);
    const before = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "git push --force origin main" } }] },
      { text: "I could not push: approval was denied." },
    );
    const r = await client.callTool({ name: "run_prompt", arguments: { prompt: "push my branch" } });
    expect(r.isError).toBeFalsy();
    expect(callText(r)).toBe("I could not push: approval was denied.");
    const second = fake.requests[before + 1]!;
    expect(String(JSON.parse(String(toolMessagesOf(second).at(-1)!.content)).error)).toMatch(
      /^Command needs approval and this run has no one to ask/,
    );
    const listed = JSON.parse(
      callText(await client.callTool({ name: "sessions_list", arguments: { source: "mcp" } })),
    );
    expect(listed.count).toBe(1);
  });

  it("run_prompt reports a run without an answer as an error", async () => {
    const box = await profile();
    const client = await connect(box);
    fake.enqueue({ fault: { kind: "http", status: 400, body: { error: { message: "bad request" } } } });
    const r = await client.callTool({ name: "run_prompt", arguments: { prompt: "anything" } });
    expect(r.isError).toBe(true);
    expect(JSON.parse(callText(r)).status).toBe("failed");
  });
});
