import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanEnv, killStrays, runHermes, sandbox } from "../support/cli.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { isAlive } from "./helpers.js";

/**
 * Background processes through the real `hermes` binary: a session starts two, exits, and a new
 * `hermes processes` sees which survived (only the nohup one).
 */

let fake: FakeLlm;
const survivors: number[] = [];

beforeEach(async () => {
  fake = await startFakeLlm();
});
afterEach(async () => {
  killStrays();
  for (const pid of survivors.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await fake.close();
});

describe("hermes processes", () => {
  it("lists the nohup process a finished session left running, not the others", async () => {
    const box = sandbox(
      `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`,
    );
    const env = cleanEnv({ HERMES_HOME: box.home });
    fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "sleep 300", background: true } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "nohup sleep 301", background: true } }] },
      { text: "Both started." },
    );
    const r = await runHermes(["-z", "start two servers"], { env, cwd: box.work });
    expect(r.stdout.trim()).toBe("Both started.");
    const records = JSON.parse(readFileSync(join(box.home, "processes.json"), "utf8")) as {
      processes: Array<{ id: string; pid: number; command: string; status: string }>;
    };
    const plain = records.processes.find((p) => p.command === "sleep 300")!;
    const kept = records.processes.find((p) => p.command === "nohup sleep 301")!;
    survivors.push(kept.pid);
    await vi.waitFor(() => expect(isAlive(plain.pid)).toBe(false), { timeout: 10_000, interval: 50 });
    expect(plain.status).toBe("killed");
    expect(isAlive(kept.pid)).toBe(true);

    const list = await runHermes(["processes"], { env, cwd: box.work });
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+PID\s+STATUS\s+AGE\s+COMMAND$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${kept.id}\\s+${kept.pid}\\s+running \\(nohup\\)\\s+\\d+s\\s+nohup sleep 301$`),
    );
    expect(list.stdout).not.toContain(plain.id);

    const all = await runHermes(["processes", "--all", "--json"], { env, cwd: box.work });
    const parsed = JSON.parse(all.stdout) as Array<{ id: string; status: string }>;
    expect(parsed.map((p) => [p.id, p.status]).sort()).toEqual(
      [
        [kept.id, "running"],
        [plain.id, "killed"],
      ].sort(),
    );
  });

  it("says so when nothing is recorded", async () => {
    const box = sandbox();
    const r = await runHermes(["processes"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(r).toMatchObject({ code: 0, stdout: "No background processes running.\n" });
  });
});
