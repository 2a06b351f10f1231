import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../../support/e2e.js";
import type { FakeLlm } from "../../support/fake-llm.js";
import { noChromium, processesMentioning } from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});
let site: TestSite;

describe.skipIf(noChromium())("the browser tools in the hermes binary", () => {
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(async () => {
    await site?.close();
  });

  it("browses in a one-shot run and leaves no Chromium process or profile behind", async () => {
    const box = sandbox(openaiConfig(fake, "toolsets: [browser]\nsecurity:\n  allow_private_urls: true\n"));
    // Chromium's profile goes to TMPDIR: a folder of this test's own shows what is left behind.
    const tmp = join(box.work, "..", "tmp");
    mkdirSync(tmp);
    fake.enqueue(
      { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/form` } }] },
      { toolCalls: [{ name: "browser_type", arguments: { ref: "@e1", text: "Binary" } }] },
      { toolCalls: [{ name: "browser_type", arguments: { ref: "@e2", text: "Blue" } }] },
      { toolCalls: [{ name: "browser_click", arguments: { ref: "@e3" } }] },
      { text: "Submitted." },
    );
    const r = await runHermes(["-z", "fill in the form"], {
      env: cleanEnv({ HERMES_HOME: box.home, TMPDIR: tmp }),
      cwd: box.work,
    });
    expect(r.stdout).toBe("Submitted.\n");
    expect(r.code).toBe(0);
    const first = fake.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(first).toEqual(expect.arrayContaining(["browser_navigate", "browser_dialog", "browser_close"]));
    const results = toolMessagesOf(fake.requests.at(-1)!).map((m) => JSON.parse(String(m.content)));
    expect(results[0].snapshot).toContain('- textbox "Name" @e1');
    expect(results[3]).toMatchObject({ success: true, element: 'button "Send"' });
    expect(results[3].url).toBe(`${site.url}/result?name=Binary&colour=Blue`);
    expect(processesMentioning(tmp)).toEqual([]);
    expect(readdirSync(tmp).filter((n) => n.startsWith("hermes-browser-"))).toEqual([]);
  });
});
