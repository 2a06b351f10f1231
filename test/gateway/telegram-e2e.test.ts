/**
 * The whole gateway in-process, through Telegram: the real runtime, delivery ledger, auth and runner
 * with the Telegram adapter on grammY, against the fake Bot API; only the model is scripted.
 */
import { describe, expect, it } from "vitest";
import { lastUser, scriptPerRequest, terminal, toolResultOf } from "../runtime/support.js";
import { cleanEnv, runHermes } from "../support/cli.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { parseTelegramHtml } from "../support/fake-telegram-wire.js";
import { botMessages, shows, type TelegramGateway, useTelegramGateway } from "./support/telegram-gateway.js";

const ALICE = 42;
const BOB = 43;
const STRANGER = 99;

const h = useTelegramGateway();
const startGateway = (extraYaml = ""): Promise<TelegramGateway> =>
  h.start({ allowed: `${ALICE},${BOB}`, yaml: extraYaml });

describe("telegram end to end", () => {
  it("answers an allowed user with a tool call, streaming the answer into one edited message", async () => {
    const { tg } = await startGateway();
    const answer = "The tool said **hello**. Here is `code` and a list:\n- one\n- two";
    h.fake.setResponder(
      scriptPerRequest({ "greet me": [terminal("echo hello-from-tool"), { text: answer }] }),
    );
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "greet me please", userName: "Alice" });
    const final = await shows(tg, ALICE, "Here is code and a list");

    expect(toolResultOf(h.fake, "greet me", "terminal")?.output).toContain("hello-from-tool");
    expect(final.text).toBe("The tool said hello. Here is code and a list:\n- one\n- two");
    expect(final.raw).toBe("The tool said <b>hello</b>. Here is <code>code</code> and a list:\n- one\n- two");
    expect(final.parseMode).toBe("HTML");
    // The tool's progress preview was edited into the answer: one bot message, edited.
    expect(final.edits).toBeGreaterThan(0);
    expect(botMessages(tg, ALICE)).toHaveLength(1);
    expect(final.replyTo).toBe(1);
    expect(tg.calls.some((c) => c.method === "sendChatAction" && c.params.action === "typing")).toBe(true);
    expect(lastUser(h.fake.requests[0]!)).toBe("greet me please");
  });

  it("gives a stranger a pairing code without calling the model, then answers once approved", async () => {
    const { t, tg } = await startGateway();
    h.fake.setResponder(() => ({ text: "welcome aboard" }));
    tg.sendUserMessage({ chatId: STRANGER, userId: STRANGER, text: "let me in", userName: "Eve" });
    const pairing = await shows(tg, STRANGER, "Pairing code");
    expect(h.fake.requests).toHaveLength(0);
    const code = /Pairing code: ([A-Z0-9]{8})/.exec(pairing.text)?.[1];
    expect(code).toBeDefined();

    const result = await runHermes(["pairing", "approve", "telegram", code!], {
      env: cleanEnv({ HERMES_HOME: t.box.home }),
      cwd: t.box.work,
    });
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toContain("Approved");
    tg.sendUserMessage({ chatId: STRANGER, userId: STRANGER, text: "hello again", userName: "Eve" });
    await shows(tg, STRANGER, "welcome aboard");
    expect(h.fake.requests).toHaveLength(1);
    expect(lastUser(h.fake.requests[0]!)).toBe("hello again");
  });

  it("stops a running turn on /stop and takes the next message at once", async () => {
    const { tg } = await startGateway();
    h.fake.setResponder(
      scriptPerRequest({
        "think forever": [{ fault: { kind: "hang" } }],
        "quick one": [{ text: "quick answer" }],
      }),
    );
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "think forever" });
    await tg.waitFor(() => h.fake.requests.length === 1);
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "/stop" });
    await shows(tg, ALICE, "Stopping");
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "quick one" });
    await shows(tg, ALICE, "quick answer");
    expect(h.fake.requests.map((r) => lastUser(r))).toEqual(["think forever", "quick one"]);
  });

  it("runs two chats in parallel but one chat's messages one after the other", async () => {
    const { tg } = await startGateway();
    // What each chat showed when each model request arrived.
    const seen = new Map<string, string[]>();
    h.fake.setResponder((req: RecordedRequest) => {
      const user = lastUser(req);
      seen.set(
        user,
        [...botMessages(tg, ALICE), ...botMessages(tg, BOB)].map((m) => m.text),
      );
      return { text: `answer to ${user}`, delayMs: 600 };
    });
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "alice first" });
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "alice second" });
    tg.sendUserMessage({ chatId: BOB, userId: BOB, text: "bob only" });
    await shows(tg, ALICE, "answer to alice second");
    await shows(tg, BOB, "answer to bob only");

    // Bob's turn started while Alice's first one was still running...
    expect(seen.get("bob only")).not.toContain("answer to alice first");
    // ...but Alice's second waited for her first answer to be complete in the chat.
    expect(seen.get("alice second")).toContain("answer to alice first");
    expect(botMessages(tg, ALICE).map((m) => m.text)).toEqual([
      "answer to alice first",
      "answer to alice second",
    ]);
  });

  it("processes an update Telegram delivers twice only once", async () => {
    const { tg } = await startGateway();
    h.fake.setResponder((req) => ({ text: `reply to ${lastUser(req)}` }));
    const { update } = tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "only once" });
    await shows(tg, ALICE, "reply to only once");
    tg.pushUpdate(update);
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "after the duplicate" });
    await shows(tg, ALICE, "reply to after the duplicate");
    expect(h.fake.requests.map((r) => lastUser(r))).toEqual(["only once", "after the duplicate"]);
    expect(botMessages(tg, ALICE).map((m) => m.text)).toEqual([
      "reply to only once",
      "reply to after the duplicate",
    ]);
  });

  it("splits a 40 000-character answer into messages Telegram accepts, code blocks intact", async () => {
    const { tg } = await startGateway();
    const parts: string[] = [];
    let line = 0;
    for (let block = 0; parts.join("\n").length < 40_000; block++) {
      const prose = Array.from(
        { length: 12 },
        () => `prose-line-${line++} with **bold** words & <angle> text`,
      );
      const code = Array.from({ length: 40 }, () => `const codeLine${line++} = "a < b && **not bold**";`);
      parts.push(`## Part ${block}`, ...prose, "```ts", ...code, "```");
    }
    const answer = parts.join("\n");
    expect(answer.length).toBeGreaterThanOrEqual(40_000);
    h.fake.setResponder(() => ({ text: answer, chunkSize: 2000 }));
    tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "write a lot" });
    const lastLine = `codeLine${line - 1}`;
    await shows(tg, ALICE, lastLine, 30_000);
    // Wait until every preview was reconciled with the answer (no placeholder left).
    const messages = await tg.waitFor(() => {
      const all = botMessages(tg, ALICE);
      const text = all.map((m) => m.text).join("\n");
      return all.every((m) => m.parseMode === "HTML") && text.includes("prose-line-0") ? all : undefined;
    }, 15_000);

    expect(messages.length).toBeGreaterThanOrEqual(10);
    for (const m of messages) {
      expect(m.text.length).toBeLessThanOrEqual(4096);
      expect(parseTelegramHtml(m.raw!)).not.toHaveProperty("error");
    }
    // Every code line sits inside a code block, every prose line outside one, in order.
    const codeOf = (raw: string): string =>
      [...raw.matchAll(/<pre><code class="language-ts">([\s\S]*?)<\/code><\/pre>/g)]
        .map((x) => x[1])
        .join("\n");
    const allCode = messages.map((m) => codeOf(m.raw!)).join("\n");
    const allText = messages.map((m) => m.text).join("\n");
    for (let n = 0; n < line; n++) {
      const isCode = allCode.includes(`codeLine${n} =`);
      const isProse = allText.includes(`prose-line-${n} with bold words & <angle> text`);
      expect(isCode || isProse, `line ${n}`).toBe(true);
      if (isProse) expect(allCode).not.toContain(`prose-line-${n} `);
    }
    const order = [...allText.matchAll(/(?:prose-line-|codeLine)(\d+)/g)].map((x) => Number(x[1]));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(line);
  });
});
