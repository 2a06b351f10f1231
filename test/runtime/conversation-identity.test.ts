import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { scripted, scriptPerRequest, terminal, toolResultOf, useRuntime } from "./support.js";

const h = useRuntime();

/** Compression after six messages, keeping one message at the head and three at the tail. */
const CONFIG = [
  "approvals:\n  mode: manual",
  "toolsets: [terminal, session_search]",
  "compression:\n  hygiene_hard_message_limit: 6\n  protect_first_n: 1\n  protect_last_n: 3",
  "",
].join("\n");

describe("one conversation keeps one identity across compression", () => {
  it("keeps a 'session' approval and session_search leaves out the whole conversation", async () => {
    const t = h.start(CONFIG);
    for (const d of ["d1", "d2"]) mkdirSync(join(t.box.work, d));
    h.fake.setResponder(
      scriptPerRequest({
        "earlier chat": [],
        "remove d1": [terminal("rm -rf d1")],
        "list files": [terminal("ls")],
        "remove d2": [
          terminal("rm -rf d2"),
          { toolCalls: [{ name: "session_search", arguments: { query: "zebrafish" } }] },
        ],
      }),
    );
    const { runtime } = t;
    const earlier = runtime.newAgent(t.listener("earlier"));
    await earlier.runConversation("earlier chat about zebrafish tanks");
    await earlier.close();

    const approve = scripted("session");
    const agent = runtime.newAgent(t.listener("agent"), { approve });
    const firstRow = agent.sessionId;
    expect((await agent.runConversation("remove d1, the zebrafish data")).status).toBe("completed");
    expect(approve.asked).toHaveLength(1);
    expect((await agent.runConversation("list files")).status).toBe("completed");
    // The history passed six messages: compression continued the conversation under a new row.
    const compressions = t.events.get("agent")!.filter((e: AgentEvent) => e.type === "compression");
    expect(compressions.length).toBeGreaterThan(0);
    expect(agent.sessionId).not.toBe(firstRow);
    expect(agent.conversationId).toBe(firstRow);
    expect(agent.sessionIds[0]).toBe(firstRow);

    expect((await agent.runConversation("remove d2 too")).status).toBe("completed");
    // The "session" answer still covers rm -rf: nobody was asked again.
    expect(approve.asked).toHaveLength(1);
    expect(existsSync(join(t.box.work, "d2"))).toBe(false);

    const found = toolResultOf(h.fake, "remove d2", "session_search") as {
      results: Array<{ session_id: string }>;
    };
    const sessions = new Set(found.results.map((r) => r.session_id));
    expect(sessions).toEqual(new Set([earlier.sessionId]));
    // The conversation's first row holds the word too: only the exclusion keeps it out.
    const all = runtime.sessions!.search({ query: "zebrafish" }).map((hit) => hit.sessionId);
    expect(all).toContain(firstRow);
  });

  it("a resumed conversation keeps the id of its first row", async () => {
    const t = h.start(CONFIG);
    h.fake.setResponder(scriptPerRequest({ "list files": [terminal("ls")], again: [terminal("ls")] }));
    const { runtime } = t;
    const agent = runtime.newAgent(t.listener("agent"));
    await agent.runConversation("hello there");
    await agent.runConversation("list files");
    await agent.runConversation("again please");
    expect(agent.sessionIds.length).toBeGreaterThan(1);
    const rows = agent.sessionIds;
    await agent.close();

    const resumed = runtime.newAgent(t.listener("resumed"), {
      resume: runtime.sessions!.getSession(rows.at(-1)!)!,
    });
    expect(resumed.conversationId).toBe(rows[0]);
    expect(resumed.sessionIds).toEqual(rows);
  });
});
