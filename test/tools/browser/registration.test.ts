import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../../src/core/config-defaults.js";
import { registerBrowserTools } from "../../../src/tools/builtin/browser/index.js";
import { chromiumFlags } from "../../../src/tools/builtin/browser/launch.js";
import { BrowserManager } from "../../../src/tools/builtin/browser/manager.js";
import { PREFER_WEB_EXTRACT } from "../../../src/tools/builtin/browser/schemas.js";
import {
  browserSettings,
  DEFAULT_BROWSER_SETTINGS,
  findChromium,
  unavailableReason,
} from "../../../src/tools/builtin/browser/settings.js";
import type { ToolContext } from "../../../src/tools/context.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { TOOLSETS } from "../../../src/tools/toolsets.js";
import { createHarness } from "../helpers.js";

const ALL = [
  "browser_back",
  "browser_click",
  "browser_close",
  "browser_console",
  "browser_dialog",
  "browser_get_images",
  "browser_navigate",
  "browser_press",
  "browser_scroll",
  "browser_snapshot",
  "browser_type",
  "browser_vision",
];

const fakeBins: string[] = [];
afterAll(() => {
  for (const dir of fakeBins) rmSync(dir, { recursive: true, force: true });
});

async function fakeBin(names: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "hermes-fake-bin-"));
  fakeBins.push(dir);
  for (const n of names) {
    writeFileSync(join(dir, n), "#!/bin/sh\nexit 0\n");
    chmodSync(join(dir, n), 0o755);
  }
  mkdirSync(join(dir, "not-a-file"));
  return dir;
}

describe("browser settings", () => {
  it("reads browser.* from config, with defaults for what is missing", () => {
    expect(browserSettings(DEFAULT_CONFIG)).toEqual(DEFAULT_BROWSER_SETTINGS);
    expect(DEFAULT_BROWSER_SETTINGS).toMatchObject({ inactivityTimeoutMs: 120_000, snapshotMaxChars: 8000 });
    const config = structuredClone(DEFAULT_CONFIG);
    config.browser = {
      executable_path: " /opt/chrome/chrome ",
      cdp_url: "http://127.0.0.1:9222",
      inactivity_timeout: 30,
      snapshot_max_chars: 4000,
      summarize_snapshots: true,
    };
    expect(browserSettings(config)).toEqual({
      executablePath: "/opt/chrome/chrome",
      cdpUrl: "http://127.0.0.1:9222",
      inactivityTimeoutMs: 30_000,
      snapshotMaxChars: 4000,
      summarizeSnapshots: true,
    });
  });

  it("finds Chromium on PATH by its usual names, or the configured binary", async () => {
    const bin = await fakeBin(["chromium-browser", "google-chrome", "my-chrome"]);
    const other = await fakeBin(["chromium"]);
    expect(findChromium("", bin)).toBe(join(bin, "chromium-browser"));
    expect(findChromium("", `${bin}:${other}`)).toBe(join(other, "chromium"));
    expect(findChromium("my-chrome", bin)).toBe(join(bin, "my-chrome"));
    expect(findChromium(join(bin, "google-chrome"), "")).toBe(join(bin, "google-chrome"));
    expect(findChromium(join(bin, "missing"), bin)).toBeUndefined();
    expect(findChromium(join(bin, "not-a-file"), bin)).toBeUndefined();
    expect(findChromium("", join(bin, "not-a-file"))).toBeUndefined();
  });

  it("explains what is missing, and needs no binary to attach over CDP", () => {
    const none = { ...DEFAULT_BROWSER_SETTINGS, executablePath: "/nonexistent/chromium" };
    expect(unavailableReason(none)).toBe(
      "browser.executable_path '/nonexistent/chromium' is not an executable file",
    );
    expect(unavailableReason({ ...none, cdpUrl: "http://127.0.0.1:9222" })).toBeUndefined();
  });

  it("launches headless with the sandbox off only for root", () => {
    expect(chromiumFlags(false)).not.toContain("--no-sandbox");
    expect(chromiumFlags(true)).toContain("--no-sandbox");
    for (const flag of [
      "--headless",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ])
      expect(chromiumFlags(false)).toContain(flag);
  });
});

describe("browser tool registration", () => {
  it("registers the twelve browser tools in the browser toolset", () => {
    const registry = new ToolRegistry<ToolContext>();
    registerBrowserTools(registry, { config: DEFAULT_CONFIG });
    expect(registry.toolsInToolset("browser")).toEqual(ALL);
    expect([...TOOLSETS.browser!.tools].filter((t) => t.startsWith("browser_")).sort()).toEqual(ALL);
  });

  it("offers the tools only when there is a browser to use", async () => {
    const missing = new ToolRegistry<ToolContext>();
    registerBrowserTools(missing, {
      manager: new BrowserManager({
        settings: { ...DEFAULT_BROWSER_SETTINGS, executablePath: "/nonexistent/x" },
      }),
    });
    expect(await missing.getDefinitions(ALL)).toEqual([]);
    const attached = new ToolRegistry<ToolContext>();
    registerBrowserTools(attached, {
      manager: new BrowserManager({
        settings: { ...DEFAULT_BROWSER_SETTINGS, cdpUrl: "http://127.0.0.1:1" },
      }),
    });
    expect((await attached.getDefinitions(ALL)).map((d) => d.function.name)).toEqual(ALL);
  });

  it("answers calls with what to install when no browser is there", async () => {
    const h = await createHarness();
    try {
      registerBrowserTools(h.registry, {
        manager: new BrowserManager({
          settings: { ...DEFAULT_BROWSER_SETTINGS, executablePath: "/nonexistent/x" },
        }),
      });
      const r = await h.call("browser_navigate", { url: "https://example.com" });
      expect(r.error).toBe(
        "The browser is not available: browser.executable_path '/nonexistent/x' is not an executable file.",
      );
    } finally {
      await h.dispose();
    }
  });

  it("drops the web_extract advice from browser_navigate when web_extract is not offered", async () => {
    const registry = new ToolRegistry<ToolContext>();
    registerBrowserTools(registry, {
      manager: new BrowserManager({
        settings: { ...DEFAULT_BROWSER_SETTINGS, cdpUrl: "http://127.0.0.1:1" },
      }),
    });
    registry.register({
      name: "web_extract",
      toolset: "web",
      schema: { description: "x", parameters: { type: "object", properties: {} } },
      handler: () => "",
    });
    const describe = async (names: string[]) =>
      (await registry.getDefinitions(names)).find((d) => d.function.name === "browser_navigate")!.function
        .description;
    const without = await describe(["browser_navigate", "browser_click"]);
    const withWeb = await describe(["browser_navigate", "web_extract"]);
    expect(withWeb).toContain(PREFER_WEB_EXTRACT.trim());
    expect(without).not.toContain("web_extract");
    expect(withWeb.replace(PREFER_WEB_EXTRACT, "")).toBe(without);
  });
});
