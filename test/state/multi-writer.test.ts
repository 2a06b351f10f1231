import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import type { WriteEvent } from "../../src/state/store.js";
import { runTogether, runTsChild } from "../support/child.js";
import { tempDir } from "../support/temp.js";

/** state.db written by several Hermes processes at once: real files, real child processes. */

const text = (m: { message: { content: unknown } }): string => String(m.message.content);

function freshStore(): SqliteSessionStore {
  const dir = tempDir("hermes-multi-");
  return new SqliteSessionStore(join(dir, "state.db"));
}

describe("state.db with several writer processes", () => {
  it("two processes appending to one session store every message, in order, with unique gap-free seqs", async () => {
    const store = freshStore();
    store.createSession({ id: "shared", source: "cli" });
    const per = 400;
    const [a, b] = await runTogether([
      ["state-writer.mjs", ["append", store.path, "shared", "A", String(per)]],
      ["state-writer.mjs", ["append", store.path, "shared", "B", String(per)]],
    ]);
    for (const run of [a!, b!]) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout.replace("ready\n", ""))).toMatchObject({ left: 0, unwritten: 0 });
    }

    const stored = store.loadMessages("shared");
    expect(stored).toHaveLength(2 * per);
    expect(stored.map((m) => m.seq)).toEqual(Array.from({ length: 2 * per }, (_, i) => i));
    for (const tag of ["A", "B"]) {
      const mine = stored
        .filter((m) => text(m).startsWith(`${tag} `))
        .map((m) => Number(text(m).split(" ")[1]));
      expect(mine).toEqual(Array.from({ length: per }, (_, i) => i));
    }
    // Both really wrote at the same time: their messages interleave.
    const switches = stored.filter((m, i) => i > 0 && text(m)[0] !== text(stored[i - 1]!)[0]).length;
    expect(switches).toBeGreaterThan(1);
    expect(store.getSession("shared")?.messageCount).toBe(2 * per);
    expect(store.search({ query: "A 399" }).length).toBeGreaterThan(0);
    expect(store.integrityCheck()).toBe("ok");
    await store.close();
  }, 60_000);

  it("another process holding the write lock for 6 s never stalls this one; every message lands in order after", async () => {
    const store = freshStore();
    store.createSession({ id: "s", source: "cli" });
    store.appendMessage("s", { role: "user", content: "before 0" });
    const events: WriteEvent[] = [];
    store.watchWrites("s", (e) => events.push(e));

    let locked = false;
    let released = false;
    let ticksWhileLocked = 0;
    let queued = 0;
    const sent: string[] = ["before 0"];
    const ticker = setInterval(() => {
      if (locked && !released) ticksWhileLocked++;
    }, 50);
    let n = 0;
    const writer = setInterval(() => {
      if (!locked || released) return;
      const content = `during ${n++}`;
      sent.push(content);
      if (store.appendMessage("s", { role: n % 2 ? "user" : "assistant", content }) === undefined) queued++;
    }, 100);

    const holder = await runTsChild("state-writer.mjs", ["hold", store.path, "6000"], (line) => {
      if (line === "locked") locked = true;
      if (line === "released") released = true;
    });
    clearInterval(ticker);
    clearInterval(writer);
    expect(holder.code, holder.stderr).toBe(0);

    // The loop kept running while the lock was held, and the appends made then had to wait.
    expect(ticksWhileLocked).toBeGreaterThan(20);
    expect(n).toBeGreaterThan(10);
    // All but perhaps the last: it may come between the commit and the "released" line.
    expect(queued).toBeGreaterThanOrEqual(n - 1);
    expect(events.some((e) => e.type === "waiting")).toBe(true);

    expect(await store.flush(10_000)).toBe(0);
    const stored = store.loadMessages("s");
    expect(stored.map(text)).toEqual(sent);
    expect(stored.map((m) => m.seq)).toEqual(sent.map((_, i) => i));
    expect(stored.every((m) => m.id > 0)).toBe(true);
    expect(events.at(-1)).toEqual({ type: "written", sessionId: "s", count: queued });
    expect(await store.close()).toEqual({ unwritten: [] });
  }, 60_000);
});
