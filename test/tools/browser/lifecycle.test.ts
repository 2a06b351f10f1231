import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { withBrowser } from "../../../src/runtime/browser-setup.js";
import {
  type BrowserHarness,
  createBrowserHarness,
  eventually,
  noChromium,
  processesMentioning,
} from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

let h: BrowserHarness | undefined;
let site: TestSite | undefined;
afterEach(async () => {
  await h?.dispose();
  await site?.close();
  h = undefined;
  site = undefined;
});

const heading = async (hh: BrowserHarness, taskId: string, path: string): Promise<string> => {
  const r = await hh.callAs(taskId, "browser_navigate", { url: `${site!.url}${path}` });
  return /- heading "([^"]*)"/.exec(String(r.snapshot))?.[1] ?? String(r.error);
};

describe.skipIf(noChromium())("browser contexts and lifecycle", () => {
  it("gives two task ids separate contexts: cookies set in one are not seen in the other", async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
    await h.callAs("task-a", "browser_navigate", { url: `${site.url}/cookie/set?flavour=ginger` });
    expect(await heading(h, "task-a", "/cookie/show")).toBe("Cookie: flavour=ginger");
    expect(await heading(h, "task-b", "/cookie/show")).toBe("Cookie: none");
    // One browser serves both tasks.
    expect(
      h.manager
        .status()
        .sessions.map((s) => s.taskId)
        .sort(),
    ).toEqual(["task-a", "task-b"]);
    expect(processesMentioning(h.manager.status().userDataDir!).length).toBeGreaterThan(0);
  });

  it("starts a subagent's context with its parent's cookies, then keeps them apart", async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
    await h.callAs("parent", "browser_navigate", { url: `${site.url}/cookie/set?flavour=rye` });
    expect(await heading(h, "parent/child-1", "/cookie/show")).toBe("Cookie: flavour=rye");
    await h.callAs("parent/child-1", "browser_navigate", { url: `${site.url}/cookie/set?flavour=spelt` });
    expect(await heading(h, "parent", "/cookie/show")).toBe("Cookie: flavour=rye");
  });

  it("closes an idle browser after the inactivity timeout, leaving no Chromium process", async () => {
    site = await startTestSite();
    h = await createBrowserHarness({ settings: { inactivityTimeoutMs: 800 } });
    const r = await h.call("browser_navigate", { url: `${site.url}/` });
    expect(r.success).toBe(true);
    const { userDataDir, running } = h.manager.status();
    expect(running).toBe(true);
    expect(processesMentioning(userDataDir!).length).toBeGreaterThan(0);
    expect(await eventually(() => !h!.manager.status().running)).toBe(true);
    expect(await eventually(() => processesMentioning(userDataDir!).length === 0)).toBe(true);
    expect(await eventually(() => !existsSync(userDataDir!))).toBe(true);
    expect(h.manager.status().sessions).toEqual([]);
    // The next call starts a new browser.
    const again = await h.call("browser_navigate", { url: `${site.url}/articles` });
    expect(again.title).toBe("Articles");
    expect(h.manager.status().userDataDir).not.toBe(userDataDir);
  });

  it("keeps a task's browser open while its calls keep coming", async () => {
    site = await startTestSite();
    h = await createBrowserHarness({ settings: { inactivityTimeoutMs: 1500 } });
    await h.call("browser_navigate", { url: `${site.url}/` });
    const dir = h.manager.status().userDataDir;
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 500));
      expect((await h.call("browser_snapshot", {})).success).toBe(true);
    }
    expect(h.manager.status().userDataDir).toBe(dir);
  });

  it("browser_close ends the task's context, and the browser with the last one", async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
    await h.callAs("one", "browser_navigate", { url: `${site.url}/` });
    await h.callAs("two", "browser_navigate", { url: `${site.url}/` });
    const dir = h.manager.status().userDataDir!;
    expect(await h.callAs("one", "browser_close")).toEqual({ success: true, closed: true });
    expect(h.manager.status()).toMatchObject({ running: true, sessions: [{ taskId: "two" }] });
    expect((await h.callAs("one", "browser_snapshot")).error).toMatch(/No page is open/);
    expect(await h.callAs("two", "browser_close")).toEqual({ success: true, closed: true });
    expect(h.manager.status().running).toBe(false);
    expect(await eventually(() => processesMentioning(dir).length === 0)).toBe(true);
    expect(await h.callAs("two", "browser_close")).toEqual({ success: true, closed: false });
  });

  it("releasing a task's environment closes its browser; disposing them all closes the browser", async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
    const environments = withBrowser(h.provider, h.manager);
    await h.callAs("agent-1", "browser_navigate", { url: `${site.url}/` });
    await h.callAs("agent-2", "browser_navigate", { url: `${site.url}/` });
    const dir = h.manager.status().userDataDir!;
    await environments.release("agent-1");
    expect(h.manager.status().sessions.map((s) => s.taskId)).toEqual(["agent-2"]);
    await environments.disposeAll();
    expect(h.manager.status()).toMatchObject({ running: false, sessions: [] });
    expect(await eventually(() => processesMentioning(dir).length === 0)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it("serves concurrent first calls of one task from a single context", async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
    const results = await Promise.all([
      h.call("browser_navigate", { url: `${site.url}/` }),
      h.call("browser_navigate", { url: `${site.url}/articles` }),
    ]);
    expect(results.every((r) => r.success === true)).toBe(true);
    expect(h.manager.status().sessions).toHaveLength(1);
    // Calls run one after the other, in order: the second navigation wins.
    expect((await h.call("browser_snapshot", {})).title).toBe("Articles");
  });

  it("replaces a page whose renderer crashed, keeping the task's cookies", async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
    await h.call("browser_navigate", { url: `${site.url}/cookie/set?flavour=barley` });
    // The tools cannot crash a page: do it the way a broken site would, through DevTools.
    const { context } = h.manager.existing("test-task")!;
    const cdp = await context.newCDPSession(context.pages()[0]!);
    await cdp.send("Page.crash").catch(() => undefined);
    expect(await heading(h, "test-task", "/cookie/show")).toBe("Cookie: flavour=barley");
  });
});
