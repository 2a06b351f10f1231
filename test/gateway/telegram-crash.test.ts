/**
 * `hermes gateway run` as a real child process on the fake Bot API: killed (SIGKILL) after the model
 * answered but before Telegram took the answer, restarted, and the answer arrives exactly once
 * without asking the model again.
 */
import { describe, expect, it } from "vitest";
import { lastUser } from "../runtime/support.js";
import { type CliRun, cleanEnv, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { startFakeTelegram } from "../support/fake-telegram.js";

let llm: FakeLlm;
useFakeLlm((f) => {
  llm = f;
});

const ALICE = 42;
const ANSWER = "The answer that must arrive exactly once.";

interface Gateway {
  run: CliRun;
  /** Resolves once the gateway says it runs; rejects with its output when it does not in time. */
  ready(): Promise<void>;
}

function gateway(box: { home: string; work: string }, token: string): Gateway {
  const run = startHermes(["gateway", "run"], {
    env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key", TELEGRAM_BOT_TOKEN: token }),
    cwd: box.work,
  });
  let output = "";
  run.child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  run.child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  return {
    run,
    ready: () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${output}`)), 20_000);
        void run.waitForStderr("Gateway running").then(() => {
          clearTimeout(timer);
          resolve();
        });
        void run.done.then((r) => {
          clearTimeout(timer);
          reject(new Error(`the gateway exited (${r.code}):\n${output}`));
        });
      }),
  };
}

describe("telegram gateway crash", () => {
  it("delivers an answer recorded before a SIGKILL once after the restart, without a second model call", async () => {
    const tg = await startFakeTelegram();
    try {
      const box = sandbox(
        openaiConfig(
          llm,
          `agent:\n  api_max_retries: 0\nstreaming:\n  enabled: false\nplatforms:\n  telegram:\n    api_root: ${tg.apiRoot}\n    allowed_users: ["${ALICE}"]\n`,
        ),
      );
      llm.setResponder(() => ({ text: ANSWER }));
      // Telegram is slow to take the answer: the process dies while the request is held.
      tg.fail("sendMessage", {
        delayMs: 60_000,
        match: (p) => String(p.text).includes("exactly once"),
      });

      const first = gateway(box, tg.token);
      await first.ready();
      tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "tell me once" });
      await tg.waitFor(
        () =>
          tg.calls.find((c) => c.method === "sendMessage" && String(c.params.text).includes("exactly once")),
        20_000,
      );
      expect(llm.requests).toHaveLength(1);
      first.run.child.kill("SIGKILL");
      const killed = await first.run.done;
      expect(killed.signal).toBe("SIGKILL");
      await tg.waitFor(() => tg.calls.some((c) => c.dropped), 5_000);
      expect(tg.messagesIn(ALICE).filter((m) => m.from === "bot")).toEqual([]);

      const second = gateway(box, tg.token);
      await second.ready();
      await tg.waitFor(() => tg.messagesIn(ALICE).find((m) => m.from === "bot" && m.text === ANSWER), 20_000);
      // A later message is answered normally, which also shows the first one is settled.
      llm.setResponder((req) => ({ text: `later: ${lastUser(req)}` }));
      tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "and now?" });
      await tg.waitFor(
        () => tg.messagesIn(ALICE).find((m) => m.from === "bot" && m.text === "later: and now?"),
        20_000,
      );
      second.run.child.kill("SIGTERM");
      await second.run.done;

      expect(
        tg
          .messagesIn(ALICE)
          .filter((m) => m.from === "bot")
          .map((m) => m.text),
      ).toEqual([ANSWER, "later: and now?"]);
      expect(llm.requests.map((r) => lastUser(r))).toEqual(["tell me once", "and now?"]);
    } finally {
      await tg.close();
    }
  }, 90_000);
});
