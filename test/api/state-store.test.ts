import { describe, expect, it } from "vitest";
import { holdStateLock } from "../support/state-lock.js";
import { useApiServer } from "./support.js";

/** The API server on state.db: deleting a session deletes what it left in every table; a held lock is a 503. */

const api = useApiServer();

describe("API server and state.db", () => {
  it("deleting a session through /api/sessions deletes its stored responses: not served, not continued", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "remembered" }));
    const { data: created, response } = await t.client.responses
      .create({ model: "m", input: "remember the word heron" })
      .withResponse();
    const sessionId = response.headers.get("x-hermes-session-id")!;
    expect((await t.client.responses.retrieve(created.id)).id).toBe(created.id);

    const deleted = await t.call(`/api/sessions/${sessionId}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);

    expect((await t.call(`/v1/responses/${created.id}`)).status).toBe(404);
    const continued = await t.post("/v1/responses", {
      model: "m",
      input: "which word?",
      previous_response_id: created.id,
    });
    expect(continued.status).toBeGreaterThanOrEqual(400);
    expect(continued.status).toBeLessThan(500);
    // The conversation was never sent to the model again.
    expect(api.fake.requests).toHaveLength(1);
    expect(t.runtime.sessions?.responses.get(created.id)).toBeUndefined();
  });

  it("a response that could not be stored (the lock stayed taken) still answers, saying store: false", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "answered anyway" }));
    const holder = await holdStateLock(t.runtime.sessions!.path);
    let created: { id: string; store?: boolean | null; output_text: string };
    try {
      created = await t.client.responses.create({ model: "m", input: "keep this" });
    } finally {
      await holder.release();
    }
    expect(created.output_text).toBe("answered anyway");
    expect(created.store).toBe(false);
    expect((await t.call(`/v1/responses/${created.id}`)).status).toBe(404);
  }, 30_000);

  it("with another process holding the write lock, reads answer, a delete waits then says 503, and works once it frees", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "ok" }));
    const { response } = await t.client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    const sessionId = response.headers.get("x-hermes-session-id")!;
    await t.runtime.sessions!.flush(5_000);

    const holder = await holdStateLock(t.runtime.sessions!.path);
    try {
      let deleteAnswered = false;
      const deleting = t.call(`/api/sessions/${sessionId}`, { method: "DELETE" }).then((r) => {
        deleteAnswered = true;
        return r;
      });
      // While the delete waits in the store's queue, the server answers reads (the old side
      // tables held the event loop for seconds, so nothing else was answered meanwhile).
      expect((await t.call("/health")).status).toBe(200);
      expect(deleteAnswered).toBe(false);
      const list = await t.call("/api/sessions");
      expect(list.status).toBe(200);
      expect(((await list.json()) as { data: Array<{ id: string }> }).data.map((s) => s.id)).toContain(
        sessionId,
      );
      const refused = await deleting;
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBeTruthy();
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("store_locked");
    } finally {
      await holder.release();
    }
    expect((await t.call(`/api/sessions/${sessionId}`, { method: "DELETE" })).status).toBe(200);
    expect((await t.call(`/api/sessions/${sessionId}`)).status).toBe(404);
  }, 30_000);
});
