import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBrowserTools } from "../../../src/tools/builtin/browser/index.js";
import { BrowserManager } from "../../../src/tools/builtin/browser/manager.js";
import { DEFAULT_BROWSER_SETTINGS } from "../../../src/tools/builtin/browser/settings.js";
import { SANDBOX_TOOLS } from "../../../src/tools/builtin/code-exec/sandbox-tools.js";
import { TOOLSETS } from "../../../src/tools/toolsets.js";
import { type CodeExecHarness, createCodeExecHarness } from "../code-exec/setup.js";
import { noChromium } from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

const BROWSER = TOOLSETS.browser!.tools.filter((t) => t.startsWith("browser_"));
let h: CodeExecHarness;
let manager: BrowserManager;
let site: TestSite;

describe.skipIf(noChromium())("browser tools from execute_code scripts", () => {
  beforeAll(async () => {
    site = await startTestSite();
    h = await createCodeExecHarness({
      enabled: ["execute_code", ...BROWSER],
      config: (c) => {
        c.security.allow_private_urls = true;
      },
    });
    manager = new BrowserManager({ settings: DEFAULT_BROWSER_SETTINGS });
    registerBrowserTools(h.registry, { manager });
  });
  afterAll(async () => {
    await manager?.closeAll();
    await h?.dispose();
    await site?.close();
  });

  it("runs the whole flow in one script: navigate, click, type, submit, scroll, back", async () => {
    const script = [
      "import re",
      "from hermes_tools import browser_navigate, browser_snapshot, browser_click, browser_type, browser_press, browser_scroll, browser_back",
      "def ref(snapshot, element):",
      "    return re.search(re.escape(element) + r'(?: \\[[^\\]]*\\])* (@e\\d+)', snapshot).group(1)",
      `home = browser_navigate(url="${site.url}/")`,
      "browser_click(ref=ref(home['snapshot'], 'link \"Form\"'))",
      "form = browser_snapshot()",
      "browser_type(ref=ref(form['snapshot'], 'textbox \"Name\"'), text='Script')",
      "browser_type(ref=ref(form['snapshot'], 'combobox \"Colour\"'), text='Blue')",
      "sent = browser_press(key='Enter')",
      "result = browser_snapshot()",
      "heading = re.search(r'heading \"([^\"]+)\"', result['snapshot']).group(1)",
      `browser_navigate(url="${site.url}/long")`,
      "down = browser_scroll(direction='down')",
      "back = browser_back()",
      "print(heading, '|', sent['url'].split('?')[1], '|', down['moved'] > 0, '|', back['url'])",
    ].join("\n");
    const r = await h.exec({ code: script });
    expect(r.status).toBe("success");
    expect(r.output).toBe(
      `Hello Script | name=Script&colour=Blue | True | ${site.url}/result?name=Script&colour=Blue\n`,
    );
    expect(r.tool_calls_made).toBe(10);
    // The script drove the session's own browser: the agent sees where it left off.
    const after = JSON.parse(await h.registry.dispatch("browser_snapshot", {}, h.ctx)) as Record<
      string,
      unknown
    >;
    expect(after.url).toBe(`${site.url}/result?name=Script&colour=Blue`);
  });

  it("offers scripts the allow-listed browser tools only", async () => {
    const r = await h.exec({
      code: [
        "import hermes_tools",
        "print(sorted(n for n in dir(hermes_tools) if n.startswith('browser_')))",
        "from hermes_tools import _call",
        "print(_call('browser_close', {}))",
      ].join("\n"),
    });
    const allowed = BROWSER.filter((t) => SANDBOX_TOOLS.includes(t)).sort();
    expect(String(r.output).split("\n")[0]).toBe(`[${allowed.map((t) => `'${t}'`).join(", ")}]`);
    expect(String(r.output)).toContain("cannot be called from execute_code");
    expect(manager.status().running).toBe(true);
  });
});
