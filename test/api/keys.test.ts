import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ApiSetupError, namedKeysOf } from "../../src/api/settings.js";
import { parseConfigText } from "../../src/core/config.js";
import { scriptPerRequest, type TestRuntime, terminal, text } from "../runtime/support.js";
import { messagesOf, toolMessagesOf } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { isAlive } from "../tools/helpers.js";
import { type ApiHarness, KEY, toolCall, useApiServer, useLeftoverProcesses } from "./support.js";

/**
 * Several people on one API server, each with a named key (`platforms.api_server.keys`): each one
 * works in a folder of their own, sees only their own background processes, memory, sessions and
 * stored responses. The owner's key keeps the profile's folder. Through the official client.
 */

const ALICE_KEY = "alice-key-0123456789abcdef";
const BOB_KEY = "bob-key-0123456789abcdef-bob";
const KEYS_YAML = `platforms:\n  api_server:\n    keys:\n      alice: ${ALICE_KEY}\n      bob: ${BOB_KEY}\n`;

const api = useApiServer();
const leftovers = useLeftoverProcesses();
const call = toolCall;

const clientFor = (t: ApiHarness, key: string): OpenAI =>
  new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 });

/** The JSON results of every tool call in the latest request serving a user text containing `marker`. */
function resultsFor(fake: FakeLlm, marker: string): Record<string, unknown>[] {
  const req = fake.requests.findLast((r) =>
    text(messagesOf(r).findLast((m) => m.role === "user")).includes(marker),
  );
  return req ? toolMessagesOf(req).map((m) => JSON.parse(text(m)) as Record<string, unknown>) : [];
}

const systemPromptOf = (r: RecordedRequest | undefined): string => text(r && messagesOf(r)[0]);

/** A named key's folders: in HERMES_HOME, under users/api/<name>. */
const userDir = (t: TestRuntime, name: string): string => join(t.box.home, "users", "api", name);

async function ask(client: OpenAI, content: string): Promise<string> {
  const { response } = await client.chat.completions
    .create({ model: "m", messages: [{ role: "user", content }] })
    .withResponse();
  return response.headers.get("x-hermes-session-id")!;
}

describe("named API keys", () => {
  it("keep each key's folder, background processes, memory, sessions and responses apart", async () => {
    const t = await api.start(KEYS_YAML);
    const alice = clientFor(t, ALICE_KEY);
    const bob = clientFor(t, BOB_KEY);
    api.fake.setResponder(
      scriptPerRequest({
        "alice starts": [
          call("memory", { target: "user", action: "add", content: "Alice drinks green tea" }),
          call("terminal", { command: "sleep 1000", background: true }),
          terminal("pwd"),
          { text: "alice: started" },
        ],
        "bob looks": [terminal("pwd"), call("process", { action: "list" }), { text: "bob: looked" }],
        "owner looks": [terminal("pwd"), { text: "owner: looked" }],
        remember: [{ text: "remembered" }],
      }),
    );

    const aliceSession = await ask(alice, "alice starts a job");
    const [, started, pwd] = resultsFor(api.fake, "alice starts");
    leftovers.push(Number(started!.pid));
    expect(String(pwd!.output).trim()).toBe(join(userDir(t, "alice"), "work"));

    const bobSession = await ask(bob, "bob looks around");
    const [bobPwd, bobList] = resultsFor(api.fake, "bob looks");
    expect(String(bobPwd!.output).trim()).toBe(join(userDir(t, "bob"), "work"));
    expect(bobList).toEqual({ processes: [] });
    expect(isAlive(Number(started!.pid))).toBe(true);

    // Alice's memory is hers: in her folder, not in Bob's prompt, not in the profile's memory.
    expect(readFileSync(join(userDir(t, "alice"), "memories", "USER.md"), "utf8")).toContain("green tea");
    const bobRequest = api.fake.requests.find((r) => JSON.stringify(messagesOf(r)).includes("bob looks"));
    expect(systemPromptOf(bobRequest)).not.toContain("green tea");
    expect(existsSync(join(t.box.home, "memories", "USER.md"))).toBe(false);

    // Sessions: each key lists and reads only its own; another's id is 404.
    const listOf = async (key: string) =>
      ((await (await t.call("/api/sessions", { key })).json()) as { data: Array<{ id: string }> }).data.map(
        (s) => s.id,
      );
    expect(await listOf(ALICE_KEY)).toEqual([aliceSession]);
    expect(await listOf(BOB_KEY)).toEqual([bobSession]);
    expect((await t.call(`/api/sessions/${aliceSession}`, { key: BOB_KEY })).status).toBe(404);
    expect((await t.call(`/api/sessions/${aliceSession}`, { key: BOB_KEY, method: "DELETE" })).status).toBe(
      404,
    );
    expect((await t.call(`/api/sessions/${aliceSession}`, { key: ALICE_KEY })).status).toBe(200);

    // Stored responses: Bob can neither read, delete nor continue Alice's.
    const stored = await alice.responses.create({ model: "m", input: "remember the heron" });
    expect((await t.call(`/v1/responses/${stored.id}`, { key: BOB_KEY })).status).toBe(404);
    expect((await t.call(`/v1/responses/${stored.id}`, { key: BOB_KEY, method: "DELETE" })).status).toBe(404);
    const requestsBefore = api.fake.requests.length;
    await expect(
      bob.responses.create({ model: "m", input: "remember what?", previous_response_id: stored.id }),
    ).rejects.toMatchObject({ status: 404 });
    expect(api.fake.requests).toHaveLength(requestsBefore);
    expect((await alice.responses.retrieve(stored.id)).id).toBe(stored.id);

    // The owner's key keeps the profile's folder and sees none of the named keys' sessions.
    const ownerSession = await ask(t.client, "owner looks around");
    const [ownerPwd] = resultsFor(api.fake, "owner looks");
    expect(String(ownerPwd!.output).trim()).toBe(t.runtime.scopeOf().workdir);
    expect(await listOf(KEY)).toEqual([ownerSession]);
    expect((await t.call(`/api/sessions/${aliceSession}`)).status).toBe(404);
  });

  it("refuses a request with none of the keys", async () => {
    const t = await api.start(KEYS_YAML);
    const wrong = await t.call("/v1/models", { key: "not-one-of-the-keys-0123456789" });
    expect(wrong.status).toBe(401);
    expect((await t.call("/v1/models", { key: BOB_KEY })).status).toBe(200);
  });
});

describe("platforms.api_server.keys", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];

  it("takes a mapping or a list, and reads env:VAR keys from the environment", () => {
    expect(namedKeysOf({ alice: ALICE_KEY }, env({}), KEY)).toEqual([{ name: "alice", key: ALICE_KEY }]);
    expect(
      namedKeysOf([{ name: "bob", key: "env:BOB_API_KEY" }], env({ BOB_API_KEY: BOB_KEY }), KEY),
    ).toEqual([{ name: "bob", key: BOB_KEY }]);
  });

  it("refuses short, missing, repeated and badly named keys, saying which", () => {
    const refused = (value: unknown, vars: Record<string, string> = {}): string => {
      try {
        namedKeysOf(value, env(vars), KEY);
      } catch (err) {
        expect(err).toBeInstanceOf(ApiSetupError);
        return (err as Error).message;
      }
      throw new Error("accepted");
    };
    expect(refused({ alice: "short" })).toMatch(/alice is 5 characters long/);
    expect(refused({ alice: "env:NOT_SET" })).toMatch(/NOT_SET is not set/);
    expect(refused({ alice: ALICE_KEY, bob: ALICE_KEY })).toMatch(/bob is the same key as another/);
    expect(refused({ alice: KEY })).toMatch(/same key/);
    expect(refused({ "../etc": ALICE_KEY })).toMatch(/not a usable key name/);
    expect(
      refused([
        { name: "alice", key: ALICE_KEY },
        { name: "alice", key: BOB_KEY },
      ]),
    ).toMatch(/twice/);
    expect(refused("alice")).toMatch(/mapping of name: key/);
  });

  it("is accepted by config.yaml as a mapping or a list, and refused otherwise", () => {
    expect(parseConfigText(KEYS_YAML, "config.yaml").warnings).toEqual([]);
    const list = "platforms:\n  api_server:\n    keys:\n      - {name: alice, key: env:ALICE_KEY}\n";
    expect(parseConfigText(list, "config.yaml").config.platforms.api_server.keys).toEqual([
      { name: "alice", key: "env:ALICE_KEY" },
    ]);
    expect(() => parseConfigText("platforms:\n  api_server:\n    keys: alice\n", "config.yaml")).toThrow(
      /keys' must be a mapping of name: key/,
    );
  });
});
