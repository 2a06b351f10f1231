import { describe, expect, it } from "vitest";
import { eventually, useApiServer } from "./support.js";

const api = useApiServer();

interface SessionJson {
  id: string;
  source: string;
  ended_at: number | null;
  messages?: Array<{ role: string; content: unknown; seq: number }>;
}
interface ListJson {
  object: string;
  data: SessionJson[];
  has_more: boolean;
  limit: number;
  offset: number;
}

describe("/api/sessions", () => {
  it("lists the API's sessions newest first, gets one with its messages, deletes one", async () => {
    const t = await api.start();
    api.fake.setResponder((req) => {
      const messages = (req.body as { messages: Array<{ role: string; content: string }> }).messages;
      return { text: `answer to ${messages.findLast((m) => m.role === "user")?.content}` };
    });
    const ids: string[] = [];
    for (const q of ["first question", "second question"]) {
      const { response } = await t.client.chat.completions
        .create({ model: "m", messages: [{ role: "user", content: q }] })
        .withResponse();
      ids.push(response.headers.get("x-hermes-session-id")!);
    }
    // A session of another front end is not listed.
    const cli = t.runtime.newAgent(() => {}, { source: "cli" });
    await cli.runConversation("from the terminal");
    await cli.close();
    for (const id of ids)
      await eventually(() => t.runtime.sessions?.getSession(id)?.endedAt != null, "the sessions to end");

    const list = (await (await t.call("/api/sessions")).json()) as ListJson;
    expect(list.object).toBe("list");
    expect(list.data.map((s) => s.id)).toEqual([ids[1], ids[0]]);
    expect(list.data.every((s) => s.source === "api_server")).toBe(true);

    const page = (await (await t.call("/api/sessions?limit=1&offset=1")).json()) as ListJson;
    expect(page.data.map((s) => s.id)).toEqual([ids[0]]);
    expect(page.has_more).toBe(false);
    expect(((await (await t.call("/api/sessions?limit=1")).json()) as ListJson).has_more).toBe(true);
    expect((await t.call("/api/sessions?limit=0")).status).toBe(400);

    const one = (await (await t.call(`/api/sessions/${ids[0]}`)).json()) as SessionJson;
    expect(one.id).toBe(ids[0]);
    expect(one.ended_at).not.toBeNull();
    expect(one.messages?.map((m) => [m.role, m.content])).toEqual([
      ["user", "first question"],
      ["assistant", "answer to first question"],
    ]);
    expect((await t.call(`/api/sessions/${cli.sessionId}`)).status).toBe(404);

    const deleted = await t.call(`/api/sessions/${ids[0]}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: ids[0], object: "session.deleted", deleted: true });
    expect((await t.call(`/api/sessions/${ids[0]}`)).status).toBe(404);
    expect(t.runtime.sessions?.getSession(ids[0]!)).toBeUndefined();
    const after = (await (await t.call("/api/sessions")).json()) as ListJson;
    expect(after.data.map((s) => s.id)).toEqual([ids[1]]);
  });

  it("stores the earlier turns a request carries, so the session reads whole", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "third answer" }));
    const { response } = await t.client.chat.completions
      .create({
        model: "m",
        messages: [
          { role: "user", content: "first" },
          { role: "assistant", content: "first answer" },
          { role: "user", content: "third" },
        ],
      })
      .withResponse();
    const id = response.headers.get("x-hermes-session-id")!;
    await eventually(() => t.runtime.sessions?.getSession(id)?.endedAt != null, "the session to end");
    const one = (await (await t.call(`/api/sessions/${id}`)).json()) as SessionJson;
    expect(one.messages?.map((m) => [m.role, m.content])).toEqual([
      ["user", "first"],
      ["assistant", "first answer"],
      ["user", "third"],
      ["assistant", "third answer"],
    ]);
  });
});
