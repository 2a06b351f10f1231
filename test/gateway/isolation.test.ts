/**
 * Two people talking to one gateway through Telegram: each works in a folder of their own, sees
 * and stops only their own background processes, and has their own memory (unless
 * gateway.shared_memory). The real runtime, runner and Telegram adapter on the fake Bot API; only
 * the model is scripted.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BOB_READS_ALICE } from "../fixtures/chat-user-reads.js";
import { FROM_CHAT_FOLDER_TO_CONFIG } from "../fixtures/user-workdir-commands.js";
import { scriptPerRequest, type TestRuntime, terminal, text, toolResultOf } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";
import type { FakeTelegram } from "../support/fake-telegram.js";
import { isAlive } from "../tools/helpers.js";
import { useTelegramGateway } from "./support/telegram-gateway.js";

const ALICE = 42;
const BOB = 43;

const gw = useTelegramGateway();
const startGateway = (yaml = "") => gw.start({ allowed: `${ALICE},${BOB}`, yaml });

/** Sends `message` as `user` (in their DM) and waits until the bot's answer `reply` shows there. */
async function say(tg: FakeTelegram, user: number, message: string, reply: string): Promise<void> {
  tg.sendUserMessage({ chatId: user, userId: user, text: message });
  await tg.waitFor(() => tg.messagesIn(user).find((m) => m.from === "bot" && m.text.includes(reply)), 20_000);
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

const lastUserOf = (r: RecordedRequest): string => text(messagesOf(r).findLast((m) => m.role === "user"));

/** The system prompt of the first model request serving a user text containing `key`. */
const systemPromptFor = (requests: readonly RecordedRequest[], key: string): string => {
  const req = requests.find((r) => lastUserOf(r).includes(key));
  return text(req && messagesOf(req)[0]);
};

/** Every result of `tool`, in call order, in the last request serving a user text containing `key`. */
function resultsOf(
  requests: readonly RecordedRequest[],
  key: string,
  tool: string,
): Record<string, unknown>[] {
  const req = requests.findLast((r) => lastUserOf(r).includes(key));
  const messages = req ? messagesOf(req) : [];
  const ids = messages
    .flatMap((m) => m.tool_calls ?? [])
    .filter((c) => c.function.name === tool)
    .map((c) => c.id);
  return ids.map((id) => {
    const result = messages.find((m) => m.role === "tool" && m.tool_call_id === id);
    return JSON.parse(text(result)) as Record<string, unknown>;
  });
}

/** A Telegram user's working folder: in HERMES_HOME, beside their memory. */
const workFolder = (t: TestRuntime, id: number): string =>
  join(t.box.home, "users", "telegram", String(id), "work");
/** Where Hermes keeps a Telegram user's memory: in HERMES_HOME. */
const memoryFolder = (t: TestRuntime, id: number): string =>
  join(t.box.home, "users", "telegram", String(id), "memories");

describe("several people on one gateway", () => {
  it("keeps each user's folder, background processes and memory apart", async () => {
    const { t, tg, runner } = await startGateway();
    gw.fake.setResponder(
      scriptPerRequest({
        "alice starts": [
          call("memory", { target: "user", action: "add", content: "Alice drinks green tea" }),
          call("terminal", { command: "sleep 1000", background: true }),
          terminal("echo made > made.txt && pwd"),
          { text: "alice: job started" },
        ],
      }),
    );
    await say(tg, ALICE, "alice starts a job", "alice: job started");
    const [started, pwd] = resultsOf(gw.fake.requests, "alice starts", "terminal");
    expect(started).toMatchObject({ status: "running" });
    const aliceJob = String(started!.session_id);
    expect(String(pwd?.output).trim()).toBe(workFolder(t, ALICE));
    // The folder is hers to work in: the approval gate guards the rest of HERMES_HOME, not it.
    expect(readFileSync(join(workFolder(t, ALICE), "made.txt"), "utf8")).toBe("made\n");

    gw.fake.setResponder(
      scriptPerRequest({
        "bob looks": [
          terminal("pwd"),
          call("process", { action: "list" }),
          call("process", { action: "kill", session_id: aliceJob }),
          { text: "bob: looked around" },
        ],
      }),
    );
    await say(tg, BOB, "bob looks around", "bob: looked around");
    expect(String(toolResultOf(gw.fake, "bob looks", "terminal")?.output).trim()).toBe(workFolder(t, BOB));
    const [bobList, bobKill] = resultsOf(gw.fake.requests, "bob looks", "process");
    expect(bobList).toEqual({ processes: [] });
    expect(String(bobKill?.error)).toMatch(new RegExp(`^No background process ${aliceJob};`));
    expect(isAlive(Number(started!.pid))).toBe(true);

    // Alice's memory is hers: in her folder, not in Bob's prompt, not in the profile's memory.
    expect(readFileSync(join(memoryFolder(t, ALICE), "USER.md"), "utf8")).toContain("Alice drinks green tea");
    expect(systemPromptFor(gw.fake.requests, "bob looks")).not.toContain("green tea");
    expect(existsSync(join(t.box.home, "memories", "USER.md"))).toBe(false);

    gw.fake.setResponder(
      scriptPerRequest({
        "alice checks": [call("process", { action: "list" }), { text: "alice: checked" }],
      }),
    );
    await say(tg, ALICE, "alice checks her job", "alice: checked");
    expect(toolResultOf(gw.fake, "alice checks", "process")).toMatchObject({
      processes: [expect.objectContaining({ session_id: aliceJob, status: "running" })],
    });

    // Stopping the gateway ends its users' background processes.
    await runner.drain(5_000);
    await t.runtime.dispose();
    expect(isAlive(Number(started!.pid))).toBe(false);
  });

  it("keeps HERMES_HOME's files and the other user's things out of a user's reach", async () => {
    const { t, tg } = await startGateway();
    const config = readFileSync(join(t.box.home, "config.yaml"), "utf8");
    gw.fake.setResponder(
      scriptPerRequest({
        "bob notes": [
          call("memory", { target: "memory", action: "add", content: "Bob's door code is 4711" }),
          terminal("echo 'bob plans' > plans.txt"),
          { text: "bob: noted" },
        ],
        "alice works": [
          terminal("pwd"),
          terminal("echo made > made.txt"),
          ...FROM_CHAT_FOLDER_TO_CONFIG.map((command) => terminal(command)),
          call("read_file", { path: join(memoryFolder(t, BOB), "MEMORY.md") }),
          call("read_file", { path: "../../43/work/plans.txt" }),
          { text: "alice: worked" },
        ],
        "owner reads": [
          terminal("pwd"),
          call("read_file", { path: join(memoryFolder(t, BOB), "MEMORY.md") }),
        ],
      }),
    );
    await say(tg, BOB, "bob notes things", "bob: noted");
    expect(readFileSync(join(workFolder(t, BOB), "plans.txt"), "utf8")).toBe("bob plans\n");
    await say(tg, ALICE, "alice works", "alice: worked");

    const [pwd, made, ...escapes] = resultsOf(gw.fake.requests, "alice works", "terminal");
    expect(String(pwd?.output).trim()).toBe(workFolder(t, ALICE));
    expect(made).toMatchObject({ exit_code: 0 });
    expect(readFileSync(join(workFolder(t, ALICE), "made.txt"), "utf8")).toBe("made\n");
    expect(escapes).toHaveLength(FROM_CHAT_FOLDER_TO_CONFIG.length);
    for (const tried of escapes) expect(tried).toMatchObject({ blocked: "hardline" });
    expect(readFileSync(join(t.box.home, "config.yaml"), "utf8")).toBe(config);
    // Nothing was put to Alice for approval: her own folder needs none, the rest cannot be approved.
    expect(tg.messagesIn(ALICE).filter((m) => m.from === "bot" && m.buttons)).toEqual([]);
    const [memory, plans] = resultsOf(gw.fake.requests, "alice works", "read_file");
    expect(String(memory?.error)).toMatch(/^Refusing to read .*MEMORY\.md: it belongs to another user/);
    expect(String(plans?.error)).toMatch(/^Refusing to read .*plans\.txt: it belongs to another user/);

    // The profile's owner (as the CLI) works as before: in the profile's folder, every file in reach.
    const owner = t.runtime.newAgent(() => undefined);
    await owner.runConversation("owner reads");
    await owner.close();
    const [ownerPwd] = resultsOf(gw.fake.requests, "owner reads", "terminal");
    expect(String(ownerPwd?.output).trim()).toBe(t.box.work);
    expect(String(toolResultOf(gw.fake, "owner reads", "read_file")?.content)).toContain("door code is 4711");
  });

  it("lets a user's commands read their own memory and never another user's", async () => {
    const { t, tg } = await startGateway();
    gw.fake.setResponder(
      scriptPerRequest({
        "alice keeps": [
          call("memory", { target: "memory", action: "add", content: "Alice's locker code is 2718" }),
          terminal("cat ../memories/MEMORY.md"),
          { text: "alice: kept" },
        ],
        "bob peeks": [terminal(BOB_READS_ALICE), { text: "bob: peeked" }],
      }),
    );
    await say(tg, ALICE, "alice keeps a note", "alice: kept");
    expect(String(toolResultOf(gw.fake, "alice keeps", "terminal")?.output)).toContain("locker code is 2718");

    await say(tg, BOB, "bob peeks at alice", "bob: peeked");
    const peek = toolResultOf(gw.fake, "bob peeks", "terminal");
    expect(peek).toMatchObject({ blocked: "hardline" });
    expect(String(peek?.error)).toContain("another user's folder or memory");
    expect(JSON.stringify(peek)).not.toContain("2718");
    // Refused outright: nothing was put to Bob for approval.
    expect(tg.messagesIn(BOB).filter((m) => m.from === "bot" && m.buttons)).toEqual([]);
    expect(readFileSync(join(memoryFolder(t, ALICE), "MEMORY.md"), "utf8")).toContain("2718");
  });

  it("reads each user's context files from their own folder", async () => {
    const { t, tg } = await startGateway();
    mkdirSync(workFolder(t, ALICE), { recursive: true });
    writeFileSync(join(workFolder(t, ALICE), "AGENTS.md"), "Alice's project: a bakery site.\n");
    writeFileSync(join(t.box.work, "AGENTS.md"), "The owner's project: a compiler.\n");
    gw.fake.setResponder((req) => ({ text: `ok ${lastUserOf(req)}` }));
    await say(tg, ALICE, "alice hello", "ok alice hello");
    await say(tg, BOB, "bob hello", "ok bob hello");
    const alice = systemPromptFor(gw.fake.requests, "alice hello");
    const bob = systemPromptFor(gw.fake.requests, "bob hello");
    expect(alice).toContain("a bakery site");
    expect(alice).not.toContain("a compiler");
    expect(bob).not.toContain("a bakery site");
    expect(bob).not.toContain("a compiler");
  });

  it("puts the documents a user sends into their own folder", async () => {
    const { t, tg } = await startGateway();
    gw.fake.setResponder(() => ({ text: "got your file" }));
    tg.sendUserMessage({
      chatId: ALICE,
      userId: ALICE,
      text: "here are my notes",
      document: { bytes: Buffer.from("alice's private notes\n"), fileName: "notes.txt" },
    });
    await tg.waitFor(() =>
      tg.messagesIn(ALICE).find((m) => m.from === "bot" && m.text.includes("got your file")),
    );
    const placed = join(workFolder(t, ALICE), "uploads", "notes.txt");
    expect(readFileSync(placed, "utf8")).toBe("alice's private notes\n");
    expect(lastUserOf(gw.fake.requests[0]!)).toContain(placed);
    expect(existsSync(join(t.box.work, "uploads"))).toBe(false);
  });

  it("with gateway.shared_memory every user reads and writes the profile's memory", async () => {
    const { t, tg } = await startGateway("gateway:\n  shared_memory: true\n");
    gw.fake.setResponder(
      scriptPerRequest({
        "alice remembers": [
          call("memory", { target: "memory", action: "add", content: "The team deploys on Fridays" }),
          { text: "alice: noted" },
        ],
      }),
    );
    await say(tg, ALICE, "alice remembers the deploy day", "alice: noted");
    expect(readFileSync(join(t.box.home, "memories", "MEMORY.md"), "utf8")).toContain("deploys on Fridays");
    gw.fake.setResponder(scriptPerRequest({ "bob asks": [{ text: "bob: answered" }] }));
    await say(tg, BOB, "bob asks about deploys", "bob: answered");
    expect(systemPromptFor(gw.fake.requests, "bob asks")).toContain("The team deploys on Fridays");
    // Their folders stay their own.
    expect(existsSync(workFolder(t, ALICE))).toBe(true);
    expect(existsSync(memoryFolder(t, ALICE))).toBe(false);
  });

  it("an admin user keeps the profile's folder and memory and shares the owner's processes", async () => {
    const { t, tg } = await startGateway("gateway:\n  admin_users: [telegram:42]\n");
    gw.fake.setResponder(
      scriptPerRequest({
        "owner starts": [
          call("terminal", { command: "sleep 1000", background: true }),
          { text: "owner: started" },
        ],
        "bob lists": [call("process", { action: "list" }), { text: "bob: listed" }],
        "admin works": [
          terminal("pwd"),
          call("process", { action: "list" }),
          call("memory", { target: "memory", action: "add", content: "Admin note" }),
          { text: "admin: done" },
        ],
      }),
    );
    // The profile's owner (as the CLI) starts a job.
    const owner = t.runtime.newAgent(() => undefined);
    await owner.runConversation("owner starts a job");
    await owner.close();
    const ownerJob = String(toolResultOf(gw.fake, "owner starts", "terminal")?.session_id);

    await say(tg, ALICE, "admin works here", "admin: done");
    expect(String(toolResultOf(gw.fake, "admin works", "terminal")?.output).trim()).toBe(t.box.work);
    expect(toolResultOf(gw.fake, "admin works", "process")).toMatchObject({
      processes: [expect.objectContaining({ session_id: ownerJob })],
    });
    expect(readFileSync(join(t.box.home, "memories", "MEMORY.md"), "utf8")).toContain("Admin note");
    expect(existsSync(workFolder(t, ALICE))).toBe(false);
    // Other chat users are not admins: the owner's processes are not theirs.
    await say(tg, BOB, "bob lists jobs", "bob: listed");
    expect(toolResultOf(gw.fake, "bob lists", "process")).toEqual({ processes: [] });
  });
});
