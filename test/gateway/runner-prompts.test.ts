import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptPerRequest, terminal, toolResultOf } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";
import { type TestGateway, useGateway } from "./support/gateway.js";
import type { MemoryAdapter } from "./support/memory-adapter.js";

const g = useGateway();

/** The bot's message that carries buttons, once it is there. */
async function promptOf(adapter: MemoryAdapter) {
  await adapter.waitFor(
    () => adapter.messages.some((m) => m.options?.buttons?.length),
    "a prompt with buttons",
  );
  return adapter.messages.find((m) => m.options?.buttons?.length)!;
}

const buttonData = (prompt: { options?: { buttons?: { text: string; data: string }[][] } }, label: string) =>
  prompt.options!.buttons!.flat().find((b) => b.text === label)!.data;

/** The model asks `question` with `choices` (clarify), then answers `text` once it has the answer. */
const askThenSay =
  (question: string, choices: string[], text: string) =>
  (req: RecordedRequest): ScriptedTurn =>
    messagesOf(req).some((m) => m.role === "tool")
      ? { text }
      : { toolCalls: [{ name: "clarify", arguments: { question, choices } }] };

/** The working folder of the memory platform's default user (u1), where their commands run. */
const userWorkdir = (gw: TestGateway): string =>
  gw.t.runtime.scopeOf({ platform: gw.adapter.name, userId: "u1" }).workdir;

describe("gateway runner: approvals and questions in the chat", () => {
  it("asks before a flagged command with buttons; Approve once runs it", async () => {
    const gw = await g.start();
    const scratch = join(userWorkdir(gw), "scratch");
    mkdirSync(scratch);
    g.fake.setResponder(scriptPerRequest({ "clean up": [terminal("rm -rf scratch"), { text: "Cleaned." }] }));
    await gw.adapter.say("clean up the scratch folder");
    const prompt = await promptOf(gw.adapter);
    expect(prompt.text).toContain("rm -rf scratch");
    expect(prompt.options!.buttons!.flat().map((b) => b.text)).toEqual([
      "Approve once",
      "Approve always",
      "Deny",
    ]);
    expect(existsSync(scratch)).toBe(true);

    // Someone else's press does not count.
    await gw.adapter.press(buttonData(prompt, "Approve once"), { userId: "u2" });
    await gw.adapter.waitFor(() => gw.adapter.answered.length === 1, "the first toast");
    expect(gw.adapter.answered[0]!.text).toBe("This prompt is for someone else.");

    await gw.adapter.press(buttonData(prompt, "Approve once"));
    await gw.adapter.waitForText("Cleaned.");
    expect(existsSync(scratch)).toBe(false);
    // The prompt shows the outcome and has no buttons left.
    expect(prompt.text).toContain("Approved once");
    expect(prompt.options?.buttons ?? []).toEqual([]);
    expect(gw.adapter.answered[1]!.text).toContain("Approved once");
  });

  it("/deny refuses the command: the model is told and nothing runs", async () => {
    const gw = await g.start();
    const scratch = join(userWorkdir(gw), "scratch");
    mkdirSync(scratch);
    g.fake.setResponder(
      scriptPerRequest({ "clean up": [terminal("rm -rf scratch"), { text: "Understood." }] }),
    );
    await gw.adapter.say("clean up the scratch folder");
    await promptOf(gw.adapter);
    await gw.adapter.say("/deny");
    await gw.adapter.waitForText("Understood.");
    expect(existsSync(scratch)).toBe(true);
    expect(JSON.stringify(toolResultOf(g.fake, "clean up", "terminal"))).toMatch(
      /denied|not approved|declined/i,
    );
    expect(gw.adapter.texts()).toContain("❌ Denied.");
  });

  it("an unanswered approval is denied after approvals.gateway_timeout", async () => {
    const gw = await g.start("approvals:\n  mode: manual\n  gateway_timeout: 0.3\n");
    const scratch = join(userWorkdir(gw), "scratch");
    mkdirSync(scratch);
    g.fake.setResponder(
      scriptPerRequest({ "clean up": [terminal("rm -rf scratch"), { text: "Nobody answered." }] }),
    );
    await gw.adapter.say("clean up the scratch folder");
    await gw.adapter.waitForText("Nobody answered.");
    expect(existsSync(scratch)).toBe(true);
    const prompt = gw.adapter.messages.find((m) => m.text.includes("needs your approval"))!;
    await gw.adapter.waitFor(() => prompt.text.includes("No answer: denied"), "the prompt's outcome");
    expect(prompt.options?.buttons ?? []).toEqual([]);
  });

  it("clarify: choices are buttons, and the chat's next message answers", async () => {
    const gw = await g.start();
    g.fake.setResponder(askThenSay("Which colour?", ["red", "blue"], "Painting it now."));
    await gw.adapter.say("paint the fence");
    const prompt = await promptOf(gw.adapter);
    expect(prompt.text).toContain("Which colour?");
    expect(prompt.options!.buttons!.flat().map((b) => b.text)).toEqual(["red", "blue"]);
    await gw.adapter.say("green, actually");
    await gw.adapter.waitForText("Painting it now.");
    expect(JSON.stringify(toolResultOf(g.fake, "paint the fence", "clarify"))).toContain("green, actually");
    // The answer was not a turn of its own.
    expect(g.fake.requests).toHaveLength(2);
  });

  it("clarify: a button press answers with that choice", async () => {
    const gw = await g.start();
    g.fake.setResponder(askThenSay("Which size?", ["small", "large"], "Size chosen."));
    await gw.adapter.say("order a shirt");
    const prompt = await promptOf(gw.adapter);
    await gw.adapter.press(buttonData(prompt, "large"));
    await gw.adapter.waitForText("Size chosen.");
    expect(JSON.stringify(toolResultOf(g.fake, "order a shirt", "clarify"))).toContain("large");
  });
});
