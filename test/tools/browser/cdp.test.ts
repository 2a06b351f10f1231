import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSlash, type SlashContext } from "../../../src/cli/repl/slash.js";
import { chromiumFlags } from "../../../src/tools/builtin/browser/launch.js";
import { findChromium } from "../../../src/tools/builtin/browser/settings.js";
import { isAlive } from "../helpers.js";
import { type BrowserHarness, createBrowserHarness, noChromium } from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

let chrome: { pid: number; url: string; profile: string; child: ChildProcess } | undefined;
let site: TestSite;
let h: BrowserHarness;

/** A Chromium of "the user's", with a DevTools port, as someone would start it to be attached to. */
async function startChrome(): Promise<{ pid: number; url: string; profile: string; child: ChildProcess }> {
  const profile = await mkdtemp(join(tmpdir(), "hermes-test-chrome-"));
  const child = spawn(
    findChromium("")!,
    [...chromiumFlags(), `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank"],
    // Its singleton socket folder goes inside the profile, which the test removes.
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: profile } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]!.replace(/^ws:\/\/([^/]+)\/.*$/, "http://$1"));
    });
    child.once("exit", () => reject(new Error(`chromium exited: ${err}`)));
  });
  return { pid: child.pid!, url, profile, child };
}

describe.skipIf(noChromium())("attaching to a running Chrome over CDP", () => {
  beforeAll(async () => {
    site = await startTestSite();
    chrome = await startChrome();
    h = await createBrowserHarness();
  });
  afterAll(async () => {
    await h?.dispose();
    if (chrome) {
      const exited = once(chrome.child, "exit");
      chrome.child.kill("SIGKILL");
      await exited;
      await rm(chrome.profile, { recursive: true, force: true, maxRetries: 5 });
    }
    await site?.close();
  });

  it("drives pages in the attached browser, then leaves it running on disconnect", async () => {
    await h.manager.connect(chrome!.url);
    expect(h.manager.status()).toMatchObject({ mode: "cdp", target: chrome!.url, running: true });
    const r = await h.call("browser_navigate", { url: `${site.url}/articles` });
    expect(r.title).toBe("Articles");
    expect(h.manager.status().sessions).toEqual([{ taskId: "test-task", url: `${site.url}/articles` }]);
    await h.manager.disconnect();
    expect(h.manager.status()).toMatchObject({ mode: "launch", running: false, sessions: [] });
    expect(isAlive(chrome!.pid)).toBe(true);
  });

  it("keeps the previous mode when the address cannot be reached", async () => {
    await expect(h.manager.connect("http://127.0.0.1:9")).rejects.toThrow();
    expect(h.manager.status().mode).toBe("launch");
  });

  it("/browser connect, status and disconnect in the chat", async () => {
    const printed: string[] = [];
    const tasks: Promise<void>[] = [];
    const ctx = {
      print: (t: string) => printed.push(t),
      browser: h.manager,
      wait: (t: Promise<void>) => tasks.push(t),
    } as unknown as SlashContext;
    const slash = async (line: string) => {
      printed.length = 0;
      expect(runSlash(line, ctx)).toBe(true);
      await Promise.all(tasks.splice(0));
      return printed.join("\n");
    };
    expect(await slash("/browser")).toMatch(/^Browser: launching \/\S+ \(headless\); not running/);
    expect(await slash(`/browser connect ${chrome!.url}`)).toBe(
      `Browser tools now drive the Chrome at ${chrome!.url} (new tabs; /browser disconnect leaves it running).`,
    );
    await h.call("browser_navigate", { url: `${site.url}/` });
    expect(await slash("/browser status")).toBe(
      `Browser: attached to the Chrome at ${chrome!.url}; running.\nOpen pages:\n  test-task: ${site.url}/`,
    );
    expect(await slash("/browser disconnect")).toBe("Browser tools will launch their own Chromium again.");
    expect(isAlive(chrome!.pid)).toBe(true);
    expect(await slash("/browser connect http://127.0.0.1:9")).toMatch(
      /^Could not attach to http:\/\/127\.0\.0\.1:9: /,
    );
    expect(await slash("/browser connect not-a-url")).toMatch(/^Usage: \/browser connect \[url\]/);
  });
});
