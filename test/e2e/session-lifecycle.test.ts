import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { messagesOf, openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const lastUser = (req: RecordedRequest): string =>
  String(messagesOf(req).findLast((m) => m.role === "user")?.content ?? "");
const answered = (req: RecordedRequest): boolean => messagesOf(req).at(-1)?.role === "tool";
const terminal = (command: string) => ({ toolCalls: [{ name: "terminal", arguments: { command } }] });
const output = (req: RecordedRequest): string =>
  String((JSON.parse(String(toolMessagesOf(req).at(-1)?.content)) as { output?: unknown }).output ?? "");
const shellDirs = (listing: string): number =>
  listing.split("\n").filter((l) => l.startsWith("hermes-shell-")).length;

describe("sessions of one chat process", () => {
  it("/new a hundred times leaves one shell-state directory behind: the current session's", async () => {
    const box = sandbox(openaiConfig(fake, "toolsets: [terminal]\n"));
    const tmp = join(box.work, "..", "tmp");
    mkdirSync(tmp);
    fake.setResponder((req) => {
      const user = lastUser(req);
      if (answered(req)) return { text: `ok: ${user}` };
      return user.startsWith("list") ? terminal(`ls -1 ${tmp}`) : terminal("cd .. && export STEP=1 && pwd");
    });
    const lines = ["list temp"];
    for (let i = 0; i < 100; i++) lines.push(`step ${i}`, "/new");
    lines.push("list temp again", "/exit");
    const r = await runHermes([], {
      env: cleanEnv({ HERMES_HOME: box.home, TMPDIR: tmp }),
      cwd: box.work,
      input: `${lines.join("\n")}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const listings = fake.requests.filter((q) => answered(q) && lastUser(q).startsWith("list")).map(output);
    expect(listings).toHaveLength(2);
    // Before: the first session's own directory. After a hundred sessions that each ran a
    // command: still one, the current session's.
    expect(listings.map(shellDirs)).toEqual([1, 1]);
    // The process removed the last one on exit.
    expect(readdirSync(tmp).filter((n) => n.startsWith("hermes-shell-"))).toEqual([]);

    const db = new DatabaseSync(join(box.home, "state.db"), { readOnly: true });
    const rows = db
      .prepare("SELECT end_reason AS reason, COUNT(*) AS n FROM sessions GROUP BY end_reason")
      .all();
    db.close();
    expect(Object.fromEntries(rows.map((x) => [x.reason, x.n]))).toEqual({ new_session: 100, exit: 1 });
  }, 180_000);

  it("/yolo applies to the current session; /new starts from the run's setting again", async () => {
    const box = sandbox(openaiConfig(fake, "approvals:\n  mode: manual\ntoolsets: [terminal]\n"));
    for (const d of ["a", "b"]) mkdirSync(join(box.work, d));
    fake.setResponder((req) => {
      const user = lastUser(req);
      if (answered(req)) return { text: `ok: ${user}` };
      return terminal(`rm -rf ${user.slice(-1)}`);
    });
    const r = await runHermes([], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
      input: "/yolo\nremove a\n/new\nremove b\n/exit\n",
    });
    expect(r.code, r.stderr).toBe(0);
    const results = fake.requests
      .filter(answered)
      .map((q) => JSON.parse(String(toolMessagesOf(q).at(-1)?.content)));
    expect(results[0].exit_code).toBe(0);
    expect(String(results[1].error)).toMatch(/no one to ask/);
    expect(readdirSync(box.work).sort()).toEqual(["b"]);
  });
});
