import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lastUser, scriptPerRequest, terminal, text, toolResultOf } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { useGateway } from "./support/gateway.js";

const g = useGateway();

const historyOf = (r: RecordedRequest | undefined): string[] => (r ? messagesOf(r).map((m) => text(m)) : []);
const requestFor = (requests: RecordedRequest[], key: string): RecordedRequest | undefined =>
  requests.findLast((r) => lastUser(r).includes(key));

describe("gateway runner: sessions", () => {
  it("evicts the least recently used agent and resumes its stored session on the next message", async () => {
    const gw = await g.start("gateway:\n  max_live_agents: 1\n");
    g.fake.setResponder(scriptPerRequest({ "my name is Zed": [{ text: "Hello Zed." }] }));
    await gw.adapter.say("my name is Zed", { userId: "u1" });
    await gw.adapter.waitForText("Hello Zed.");
    const before = gw.routing.get(gw.dmKey("u1"))!.sessionId;

    await gw.adapter.say("hi from another chat", { userId: "u2" });
    await gw.adapter.waitFor(() => gw.adapter.texts("c-u2").length === 1, "chat 2's answer");
    // Only one agent is live: chat 1's was closed (its stored session says so).
    expect(gw.runner.status().liveSessions).toBe(1);
    await gw.adapter.waitFor(
      () => gw.t.runtime.sessions?.getSession(before)?.endReason === "evicted",
      "the evicted session's row",
    );

    await gw.adapter.say("what is my name?", { userId: "u1" });
    await gw.adapter.waitFor(() => gw.adapter.texts("c-u1").length === 2, "chat 1's second answer");
    // The conversation went on in the same stored session, with its history.
    expect(historyOf(requestFor(g.fake.requests, "what is my name?"))).toEqual(
      expect.arrayContaining(["my name is Zed", "Hello Zed.", "what is my name?"]),
    );
    expect(gw.routing.get(gw.dmKey("u1"))!.sessionId).toBe(before);
    expect(gw.runner.status().liveSessions).toBe(1);
  });

  it("/new starts a new session for the chat", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "noted" }));
    await gw.adapter.say("remember the password swordfish");
    await gw.adapter.waitForText("noted");
    const first = gw.routing.get(gw.dmKey())!.sessionId;
    await gw.adapter.say("/new");
    await gw.adapter.waitForText("New conversation started");
    await gw.adapter.say("what was the password?");
    await gw.adapter.waitFor(() => g.fake.requests.length === 2, "the second model call");
    await gw.adapter.waitFor(() => gw.routing.get(gw.dmKey())?.sessionId !== first, "the new route");
    expect(historyOf(g.fake.requests[1]).some((t) => t.includes("swordfish"))).toBe(false);
    expect(gw.t.runtime.sessions?.getSession(first)?.endedAt).not.toBeNull();
  });

  it("/resume lists the user's own conversations and continues one; another user's is out of reach", async () => {
    const gw = await g.start();
    g.fake.setResponder((req) => ({ text: `re: ${lastUser(req)}` }));
    await gw.adapter.say("the blue project");
    await gw.adapter.waitForText("re: the blue project");
    const blue = gw.routing.get(gw.dmKey())!.sessionId;
    await gw.adapter.say("/title Blue");
    await gw.adapter.waitForText("Title set: Blue");
    await gw.adapter.say("/new");
    await gw.adapter.waitForText("New conversation started");
    await gw.adapter.say("the red project");
    await gw.adapter.waitForText("re: the red project");
    await gw.adapter.say("a secret of user two", { userId: "u2" });
    await gw.adapter.waitFor(() => gw.adapter.texts("c-u2").length === 1, "user two's answer");
    const other = gw.routing.get(gw.dmKey("u2"))!.sessionId;

    await gw.adapter.say("/resume");
    await gw.adapter.waitForText("Your conversations");
    const listing = gw.adapter.texts().findLast((t) => t.includes("Your conversations"))!;
    expect(listing).toContain("Blue");
    expect(listing).toContain(blue.slice(0, 8));
    expect(listing).not.toContain(other.slice(0, 8));

    await gw.adapter.say(`/resume ${other}`);
    await gw.adapter.waitForText("No conversation of yours matches");
    await gw.adapter.say("/resume blue");
    await gw.adapter.waitForText('Continuing "Blue"');
    await gw.adapter.say("where were we?");
    await gw.adapter.waitForText("re: where were we?");
    expect(gw.routing.get(gw.dmKey())!.sessionId).toBe(blue);
    const history = historyOf(requestFor(g.fake.requests, "where were we?"));
    expect(history).toEqual(expect.arrayContaining(["the blue project", "re: the blue project"]));
    expect(history.some((t) => t.includes("red project"))).toBe(false);
  });

  it("session_reset idle: a message after the idle time starts a new session", async () => {
    let clock = Date.parse("2030-01-01T12:00:00Z");
    const gw = await g.start("session_reset:\n  mode: idle\n  idle_minutes: 30\n", { now: () => clock });
    g.fake.setResponder(() => ({ text: "ok" }));
    await gw.adapter.say("early message");
    await gw.adapter.waitFor(() => gw.adapter.texts().length === 1, "the first answer");
    const first = gw.routing.get(gw.dmKey())!.sessionId;
    clock += 10 * 60_000;
    await gw.adapter.say("ten minutes later");
    await gw.adapter.waitFor(() => gw.adapter.texts().length === 2, "the second answer");
    expect(gw.routing.get(gw.dmKey())!.sessionId).toBe(first);
    clock += 31 * 60_000;
    await gw.adapter.say("after a long break");
    await gw.adapter.waitFor(() => gw.adapter.texts().length === 3, "the third answer");
    expect(gw.routing.get(gw.dmKey())!.sessionId).not.toBe(first);
    expect(historyOf(g.fake.requests[2]).some((t) => t.includes("early message"))).toBe(false);
  });

  it("session_search of a chat's agent sees only its own user's sessions", async () => {
    const gw = await g.start("platform_toolsets:\n  memchat: [session_search]\n");
    const cli = gw.t.runtime.newAgent(() => undefined, { platform: "cli" });
    g.fake.setResponder((req) => {
      const user = lastUser(req);
      if (user.includes("search my past") && !messagesOf(req).some((m) => m.role === "tool"))
        return {
          toolCalls: [{ name: "session_search", arguments: { query: "pineapple", include_current: true } }],
        };
      return { text: "ok" };
    });
    await cli.runConversation("pineapple from the terminal");
    await gw.adapter.say("pineapple of user one", { userId: "u1" });
    await gw.adapter.say("pineapple of user two", { userId: "u2" });
    await gw.adapter.waitFor(() => gw.adapter.texts().length === 2, "both answers");
    await gw.adapter.say("search my past for it", { userId: "u1" });
    await gw.adapter.waitFor(() => g.fake.requests.length === 5, "the call after the search");
    await gw.adapter.waitFor(() => gw.adapter.texts("c-u1").at(-1) === "ok", "the search answer");

    const own = gw.routing.get(gw.dmKey("u1"))!.sessionId;
    const result = toolResultOf(g.fake, "search my past", "session_search") as {
      results: { session_id: string; snippet: string }[];
    };
    expect(result.results.length).toBeGreaterThan(0);
    expect(new Set(result.results.map((r) => r.session_id))).toEqual(new Set([own]));
    expect(JSON.stringify(result)).not.toContain("user two");
    // The tool list came from platform_toolsets: session_search only.
    const tools = (g.fake.requests.at(-1)!.body as { tools: { function: { name: string } }[] }).tools;
    expect(tools.map((t) => t.function.name)).toEqual(["session_search"]);
    await cli.close();
  });

  it("re-runs a message whose turn never finished when the gateway starts again", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "answered after the restart" }));
    const next = await gw.restart(() => {
      // Recorded by a previous run that stopped before its turn ran.
      gw.ledger.recordInbound({
        platform: "memchat",
        updateId: "upd-lost",
        chatId: "c-u1",
        chatType: "dm",
        userId: "u1",
        text: "the lost message",
        receivedAt: Date.now(),
      });
    });
    await next.adapter.waitForText("answered after the restart");
    expect(lastUser(g.fake.requests[0]!)).toBe("the lost message");
    expect(next.ledger.inboundStatus("memchat", "upd-lost")).toBe("done");
  });

  it("a turn the drain cut short runs again after the restart with the message once in the conversation", async () => {
    const gw = await g.start();
    let calls = 0;
    g.fake.setResponder(() =>
      ++calls === 1 ? { fault: { kind: "hang" } } : { text: "answer after restart" },
    );
    const m = await gw.adapter.say("slow question");
    await gw.adapter.waitFor(() => g.fake.requests.length === 1, "the first model call");
    const next = await gw.restart();
    await next.adapter.waitForText("answer after restart");
    const users = messagesOf(g.fake.requests.at(-1)!).filter((x) => x.role === "user");
    expect(users.map((x) => text(x))).toEqual(["slow question"]);
    expect(next.ledger.inboundStatus(m.platform, m.updateId)).toBe("done");
    // The stored session holds the message once too, followed by its answer.
    const stored = next.t.runtime.sessions!.loadMessages(next.routing.get(next.dmKey())!.sessionId);
    expect(stored.filter((x) => x.message.role === "user").map((x) => x.message.content)).toEqual([
      "slow question",
    ]);
  });

  it("a re-run whose turn had run a tool keeps that work and asks the model to finish", async () => {
    const gw = await g.start();
    let calls = 0;
    g.fake.setResponder(() => {
      calls += 1;
      if (calls === 1) return terminal("echo did-the-work");
      if (calls === 2) return { fault: { kind: "hang" } };
      return { text: "finished after restart" };
    });
    await gw.adapter.say("do the work");
    await gw.adapter.waitFor(() => g.fake.requests.length === 2, "the second model call");
    const next = await gw.restart();
    await next.adapter.waitForText("finished after restart");
    const history = messagesOf(g.fake.requests.at(-1)!);
    const users = history.filter((x) => x.role === "user").map((x) => text(x));
    expect(users[0]).toBe("do the work");
    expect(users.filter((u) => u === "do the work")).toHaveLength(1);
    expect(users.at(-1)).toContain("gateway restarted");
    expect(history.some((x) => x.role === "tool" && text(x).includes("did-the-work"))).toBe(true);
    expect(calls).toBe(3);
  });

  it("/model switches this chat's model; /title names its session; /usage counts tokens", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "fine", usage: { input: 120, output: 30 } }));
    await gw.adapter.say("/model");
    await gw.adapter.waitForText("Model: test-model");
    await gw.adapter.say("/model other-model");
    await gw.adapter.waitForText("Model switched to other-model");
    await gw.adapter.say("hello");
    await gw.adapter.waitForText("fine");
    expect((g.fake.requests[0]!.body as { model: string }).model).toBe("other-model");
    await gw.adapter.say("/title Weekend plans");
    await gw.adapter.waitForText("Title set: Weekend plans");
    const id = gw.routing.get(gw.dmKey())!.sessionId;
    await gw.adapter.waitFor(
      () => gw.t.runtime.sessions?.getSession(id)?.title === "Weekend plans",
      "the title",
    );
    await gw.adapter.say("/usage");
    await gw.adapter.waitForText("Input tokens: 120");
    // Another chat keeps the default model.
    await gw.adapter.say("/model", { userId: "u2" });
    await gw.adapter.waitFor(() => gw.adapter.texts("c-u2").includes("Model: test-model"), "chat 2's model");
  });

  it("runs a skill as /<skill-name> args, and passes unknown commands to the model", async () => {
    const gw = await g.start();
    const dir = join(gw.t.box.home, "skills", "haiku-writer");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: haiku-writer\ndescription: Writes haiku.\n---\n\n# haiku-writer\n\nCount syllables 5-7-5.\n",
    );
    g.fake.setResponder(() => ({ text: "a haiku" }));
    await gw.adapter.say("/haiku-writer about autumn");
    await gw.adapter.waitForText("a haiku");
    const first = lastUser(g.fake.requests[0]!);
    expect(first).toContain("Count syllables 5-7-5.");
    expect(first).toContain("Arguments: about autumn");
    await gw.adapter.say("/frobnicate now");
    await gw.adapter.waitFor(() => g.fake.requests.length === 2, "the second call");
    expect(lastUser(g.fake.requests[1]!)).toBe("/frobnicate now");
    await gw.adapter.say("/help");
    await gw.adapter.waitForText("/stop: stop the running answer");
  });

  it("tells the chat when a background process it started has finished", async () => {
    const gw = await g.start();
    g.fake.setResponder((req) => {
      const all = JSON.stringify(messagesOf(req));
      if (all.includes("Background work you started")) return { text: "Your build finished." };
      if (!messagesOf(req).some((m) => m.role === "tool"))
        return {
          toolCalls: [
            {
              name: "terminal",
              arguments: { command: "sleep 0.3 && echo built", background: true, notify_on_complete: true },
            },
          ],
        };
      return { text: "Started the build in the background." };
    });
    await gw.adapter.say("start the build");
    await gw.adapter.waitForText("Started the build in the background.");
    await gw.adapter.waitForText("Your build finished.");
    // The notice turn's request carried the process's completion notice.
    const noticeTurn = g.fake.requests.at(-1)!;
    expect(lastUser(noticeTurn)).toContain("built");
    expect(g.fake.requests).toHaveLength(3);
  });

  it("saves a document into the user's working folder and tells the model where it is", async () => {
    const gw = await g.start();
    const download = join(gw.t.box.home, "cache-download.txt");
    writeFileSync(download, "quarterly numbers");
    g.fake.setResponder(() => ({ text: "got it" }));
    await gw.adapter.say("look at this", {
      attachments: [
        { kind: "document", path: download, fileName: "report.txt" },
        { kind: "image", path: "/tmp/photo.jpg" },
      ],
    });
    await gw.adapter.waitForText("got it");
    const saved = join(gw.t.box.home, "users", gw.adapter.name, "u1", "work", "uploads", "report.txt");
    expect(existsSync(saved)).toBe(true);
    const user = lastUser(g.fake.requests[0]!);
    expect(user).toContain(`The user sent a document: ${saved}`);
    expect(user).toContain("The user sent an image: /tmp/photo.jpg");
  });
});
