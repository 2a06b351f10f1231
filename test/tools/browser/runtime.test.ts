import { describe, expect, it } from "vitest";
import { useRuntime } from "../../runtime/support.js";
import { eventually, noChromium, processesMentioning } from "./setup.js";
import { startTestSite } from "./site.js";

const h = useRuntime();

describe.skipIf(noChromium())("the runtime's browser", () => {
  it("is the one the tools use, and a conversation's close ends its context and the idle browser", async () => {
    const site = await startTestSite();
    try {
      const t = h.start("toolsets: [browser]\nsecurity:\n  allow_private_urls: true\n");
      h.fake.enqueue(
        { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/articles` } }] },
        { text: "Read it." },
      );
      const agent = t.runtime.newAgent(t.listener("a"));
      await agent.runConversation("read the articles page");
      const status = t.runtime.browser.status();
      expect(status).toMatchObject({
        running: true,
        sessions: [{ taskId: agent.taskId, url: `${site.url}/articles` }],
      });
      await agent.close();
      expect(t.runtime.browser.status()).toMatchObject({ running: false, sessions: [] });
      expect(await eventually(() => processesMentioning(status.userDataDir!).length === 0)).toBe(true);
    } finally {
      await site.close();
    }
  });

  it("closes with the runtime", async () => {
    const site = await startTestSite();
    try {
      const t = h.start("toolsets: [browser]\nsecurity:\n  allow_private_urls: true\n");
      h.fake.enqueue(
        { toolCalls: [{ name: "browser_navigate", arguments: { url: `${site.url}/` } }] },
        { text: "Done." },
      );
      await t.runtime.newAgent(t.listener("a")).runConversation("open the home page");
      const { userDataDir, running } = t.runtime.browser.status();
      expect(running).toBe(true);
      await t.runtime.dispose();
      expect(t.runtime.browser.status().running).toBe(false);
      expect(await eventually(() => processesMentioning(userDataDir!).length === 0)).toBe(true);
    } finally {
      await site.close();
    }
  });
});
