/**
 * `hermes gateway run` (the built binary) on the fake Bot API, with a plugin whose hook throws from
 * a timer after every answer: the gateway logs it against the plugin, keeps answering, and
 * disables the plugin at the third throw.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePlugin } from "../plugins/support.js";
import { lastUser } from "../runtime/support.js";
import { cleanEnv, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { startFakeTelegram } from "../support/fake-telegram.js";
import { flakyPlugin, logRecords, watchOutput } from "./crash-guard-support.js";

let llm: FakeLlm;
useFakeLlm((f) => {
  llm = f;
});

const ALICE = 42;

describe("hermes gateway run with a plugin that throws from a timer", () => {
  it("keeps answering on Telegram, logs the plugin, and disables it after three throws", async () => {
    const tg = await startFakeTelegram();
    try {
      const box = sandbox(
        openaiConfig(
          llm,
          `agent:\n  api_max_retries: 0\nstreaming:\n  enabled: false\nplugins:\n  enabled: [flaky]\nplatforms:\n  telegram:\n    api_root: ${tg.apiRoot}\n    allowed_users: ["${ALICE}"]\n`,
        ),
      );
      writePlugin(join(box.home, "plugins"), "flaky", flakyPlugin.manifest, flakyPlugin.files);
      llm.setResponder((req) => ({ text: `re: ${lastUser(req)}` }));
      const run = startHermes(["gateway", "run"], {
        env: cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key", TELEGRAM_BOT_TOKEN: tg.token }),
        cwd: box.work,
      });
      const output = watchOutput(run);
      await output.wait(/Gateway running/);

      for (let n = 1; n <= 4; n++) {
        tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: `message ${n}` });
        await tg.waitFor(
          () => tg.messagesIn(ALICE).find((m) => m.from === "bot" && m.text === `re: message ${n}`),
          20_000,
        );
        if (n <= 3)
          await output.wait(new RegExp(`uncaught exception from plugin 'flaky'[^\\n]*timer failure ${n}`));
      }
      await output.wait(/plugin 'flaky' disabled: it failed 3 times within 60 s/);
      // The fourth answer came without the hook: it fired three times only.
      const fired = readFileSync(join(box.home, "plugins", "flaky", "fired.txt"), "utf8");
      expect(fired.trim().split("\n")).toHaveLength(3);

      run.child.kill("SIGTERM");
      const r = await run.done;
      expect(r.code).toBe(0);
      const crashes = logRecords(join(box.home, "logs", "gateway.log")).filter(
        (x) => x.msg === "uncaught exception",
      );
      expect(crashes.map((x) => x.source)).toEqual(["plugin:flaky", "plugin:flaky", "plugin:flaky"]);
      expect(
        logRecords(join(box.home, "logs", "agent.log")).find((x) => x.msg === "plugin disabled"),
      ).toMatchObject({ plugin: "flaky" });
    } finally {
      await tg.close();
    }
  }, 90_000);
});
