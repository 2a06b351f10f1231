import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { holdStateLock } from "../support/state-lock.js";
import { eventually, useApiServer } from "./support.js";

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

  it("a response that could not be stored (the lock stayed taken) fails with 503; its Idempotency-Key retry stores and gets it without running again", async () => {
    const t = await api.start();
    // The run waits in a tool for the test to take the lock: the key is claimed, the store then fails.
    const go = join(t.box.home, "go");
    api.fake.enqueue(
      {
        toolCalls: [{ name: "terminal", arguments: { command: `while [ ! -e ${go} ]; do sleep 0.1; done` } }],
      },
      { text: "answered once" },
    );
    const send = () =>
      t.call("/v1/responses", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "store-or-fail-1" },
        body: JSON.stringify({ model: "m", input: "keep this" }),
      });
    const first = send();
    await eventually(() => api.fake.requests.length === 1, "the run's first model call");
    const holder = await holdStateLock(t.runtime.sessions!.path);
    let refused: Response;
    try {
      writeFileSync(go, "");
      refused = await first;
    } finally {
      await holder.release();
    }
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("store_locked");
    expect(error.message).toMatch(/answer was produced but could not be stored/);

    const retried = await send();
    expect(retried.status).toBe(200);
    const created = (await retried.json()) as { id: string; store: boolean; output: unknown[] };
    expect(created.store).toBe(true);
    expect(JSON.stringify(created.output)).toContain("answered once");
    expect(api.fake.requests).toHaveLength(2);
    expect((await t.client.responses.retrieve(created.id)).id).toBe(created.id);
    // Once stored, the key's answer is final: a later retry replays it too.
    expect(((await (await send()).json()) as { id: string }).id).toBe(created.id);
    expect(api.fake.requests).toHaveLength(2);
  }, 60_000);

  it("a streamed response that could not be stored ends with response.failed and an error, not response.completed", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "streamed once" }));
    const holder = await holdStateLock(t.runtime.sessions!.path);
    let body: string;
    try {
      const streamed = await t.post("/v1/responses", { model: "m", input: "keep this", stream: true });
      expect(streamed.status).toBe(200);
      body = await streamed.text();
    } finally {
      await holder.release();
    }
    const events = [...body.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(events).not.toContain("response.completed");
    expect(events.slice(-2)).toEqual(["response.failed", "error"]);
    expect(body).toContain("store_locked");
  }, 60_000);

  it("with store: false nothing is stored, and the answer goes out while the lock is held", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "not kept" }));
    const holder = await holdStateLock(t.runtime.sessions!.path);
    let created: { id: string; store?: boolean | null; output_text: string };
    try {
      created = await t.client.responses.create({ model: "m", input: "keep this", store: false });
    } finally {
      await holder.release();
    }
    expect(created.output_text).toBe("not kept");
    expect(created.store).toBe(false);
    expect((await t.call(`/v1/responses/${created.id}`)).status).toBe(404);
  }, 60_000);

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
