import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserHarness, createBrowserHarness, noChromium, refOf } from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

let h: BrowserHarness;
let site: TestSite;

describe.skipIf(noChromium())("browser tools in headless Chromium", () => {
  beforeAll(async () => {
    site = await startTestSite();
    h = await createBrowserHarness();
  });
  afterAll(async () => {
    await h?.dispose();
    await site?.close();
  });

  it("navigate returns the first snapshot, with @eN refs on the lines of interactive elements", async () => {
    const r = await h.call("browser_navigate", { url: `${site.url}/` });
    expect(r.success).toBe(true);
    expect(r.title).toBe("Home");
    expect(r.status).toBe(200);
    const snap = String(r.snapshot);
    expect(snap).toContain('- heading "Welcome home" [level=1]');
    expect(snap).toMatch(/^ {2}- link "Articles" @e1$/m);
    expect(snap).toMatch(/- link "Form" @e2$/m);
    expect(snap).not.toMatch(/\[ref=|\[cursor=|\[box=/);
    // Only interactive elements get refs: headings and images do not.
    expect(snap).toMatch(/- img "A sleeping cat"$/m);
    expect(r.element_count).toBe(3);
  });

  it("browser_snapshot full=true adds link URLs; compact leaves them out", async () => {
    const compact = await h.call("browser_snapshot", {});
    const full = await h.call("browser_snapshot", { full: true });
    expect(String(compact.snapshot)).not.toContain("/url:");
    expect(String(full.snapshot)).toMatch(/- link "Articles" @e1:\n\s+- \/url: \/articles/);
    // The same element keeps its number across snapshots of one page.
    expect(refOf(full.snapshot, 'link "Form"')).toBe(refOf(compact.snapshot, 'link "Form"'));
  });

  it("clicks a link by ref and lands on its page; refs start again from @e1 there", async () => {
    const home = await h.call("browser_navigate", { url: `${site.url}/` });
    const r = await h.call("browser_click", { ref: refOf(home.snapshot, 'link "Articles"') });
    expect(r).toMatchObject({ success: true, element: 'link "Articles"', url: `${site.url}/articles` });
    // The old page's refs no longer point anywhere until a snapshot of the new page is taken.
    const stale = await h.call("browser_click", { ref: "@e2" });
    expect(String(stale.error)).toMatch(/Unknown ref @e2.*Take a snapshot/);
    const s = await h.call("browser_snapshot", {});
    expect(s.snapshot).toContain('- heading "All articles"');
    expect(refOf(s.snapshot, 'link "Back home"')).toBe("@e1");
  });

  it("types into a form, picks a dropdown option by label, and submits with Enter", async () => {
    const form = await h.call("browser_navigate", { url: `${site.url}/form` });
    const typed = await h.call("browser_type", { ref: refOf(form.snapshot, 'textbox "Name"'), text: "Ada" });
    expect(typed).toMatchObject({ success: true, typed: "Ada" });
    // The field is cleared first: typing again replaces the text.
    await h.call("browser_type", { ref: refOf(form.snapshot, 'textbox "Name"'), text: "Ada Lovelace" });
    const colour = refOf(form.snapshot, 'combobox "Colour"');
    const missing = await h.call("browser_type", { ref: colour, text: "Purple" });
    expect(missing.error).toBe(
      `${colour} (combobox "Colour") has no option "Purple". Its options: Red, Green, Blue.`,
    );
    expect((await h.call("browser_type", { ref: colour, text: "green" })).success).toBe(true);
    const pressed = await h.call("browser_press", { key: "Enter" });
    expect(pressed.url).toBe(`${site.url}/result?name=Ada+Lovelace&colour=Green`);
    const s = await h.call("browser_snapshot", {});
    expect(s.snapshot).toContain('- heading "Hello Ada Lovelace"');
    expect(s.snapshot).toContain("Colour: Green");
  });

  it("submits a form by clicking its button", async () => {
    const form = await h.call("browser_navigate", { url: `${site.url}/form` });
    await h.call("browser_type", { ref: refOf(form.snapshot, 'textbox "Name"'), text: "Grace" });
    const r = await h.call("browser_click", { ref: refOf(form.snapshot, 'button "Send"') });
    expect(r.url).toBe(`${site.url}/result?name=Grace&colour=Red`);
  });

  it("scrolls a long page down and back up, and says when it cannot go further", async () => {
    await h.call("browser_navigate", { url: `${site.url}/long` });
    const down = await h.call("browser_scroll", { direction: "down" });
    expect(down.success).toBe(true);
    expect(Number(down.moved)).toBeGreaterThan(0);
    expect(down.position).toBe(down.moved);
    const where = await h.call("browser_console", { expression: "Math.round(window.scrollY)" });
    expect(where.result).toBe(down.position);
    const up = await h.call("browser_scroll", { direction: "up" });
    expect(up.position).toBe(0);
    const again = await h.call("browser_scroll", { direction: "up" });
    expect(again).toMatchObject({ moved: 0, note: "Already at the top of the page." });
  });

  it("goes back in history, and says so when there is nowhere to go", async () => {
    await h.callAs("history", "browser_navigate", { url: `${site.url}/` });
    await h.callAs("history", "browser_navigate", { url: `${site.url}/articles` });
    const back = await h.callAs("history", "browser_back");
    expect(back).toMatchObject({ success: true, url: `${site.url}/` });
    const snap = await h.callAs("history", "browser_snapshot");
    expect(snap.snapshot).toContain("Welcome home");
    const none = await h.callAs("history", "browser_back");
    expect(String(none.error)).toContain("no previous page");
    await h.callAs("history", "browser_close");
  });

  it("reports a JS alert in the snapshot and answers it with browser_dialog", async () => {
    const page = await h.call("browser_navigate", { url: `${site.url}/dialogs` });
    const click = await h.call("browser_click", { ref: refOf(page.snapshot, 'button "Warn me"') });
    expect(click.dialog).toEqual({ type: "alert", message: "Careful now" });
    const blocked = await h.call("browser_snapshot", {});
    expect(blocked.dialog).toEqual({ type: "alert", message: "Careful now" });
    expect(String(blocked.snapshot)).toContain(
      'A JavaScript alert is open and blocks the page: "Careful now"',
    );
    const answered = await h.call("browser_dialog", { action: "accept" });
    expect(answered).toMatchObject({ success: true, action: "accept", answered: { type: "alert" } });
    expect(answered).not.toHaveProperty("dialog");
    const after = await h.call("browser_snapshot", {});
    expect(after.snapshot).toContain("alert closed");
    const again = await h.call("browser_dialog", { action: "accept" });
    expect(String(again.error)).toContain("No JavaScript dialog is open");
  });

  it("dismisses a confirm and fills a prompt", async () => {
    const page = await h.call("browser_navigate", { url: `${site.url}/dialogs` });
    await h.call("browser_click", { ref: refOf(page.snapshot, 'button "Ask me"') });
    await h.call("browser_dialog", { action: "dismiss" });
    expect((await h.call("browser_snapshot", {})).snapshot).toContain("declined");
    const prompt = await h.call("browser_click", { ref: refOf(page.snapshot, 'button "Prompt me"') });
    expect(prompt.dialog).toMatchObject({ type: "prompt", message: "Your name?", default_value: "nobody" });
    await h.call("browser_dialog", { action: "accept", prompt_text: "Linus" });
    expect((await h.call("browser_snapshot", {})).snapshot).toContain("name: Linus");
  });

  it("collects console messages and uncaught errors, and clears them on request", async () => {
    await h.call("browser_navigate", { url: `${site.url}/errors` });
    await h.call("browser_console", { expression: "new Promise((r) => setTimeout(r, 50))" });
    const r = await h.call("browser_console", { clear: true });
    expect(r.console_messages).toEqual(
      expect.arrayContaining([
        { type: "log", text: "page ready" },
        { type: "error", text: "bad thing happened" },
      ]),
    );
    expect(r.js_errors).toEqual(["kaboom from a timer"]);
    const empty = await h.call("browser_console", {});
    expect(empty).toMatchObject({ total_messages: 0, total_errors: 0 });
  });

  it("evaluates an expression in the page, and reports one that throws", async () => {
    await h.call("browser_navigate", { url: `${site.url}/` });
    const r = await h.call("browser_console", { expression: "document.querySelectorAll('img').length" });
    expect(r.result).toBe(2);
    const bad = await h.call("browser_console", { expression: "nosuchthing.value" });
    expect(String(bad.error)).toMatch(/The expression failed: .*nosuchthing/);
  });

  it("lists the page's images with their alt text", async () => {
    await h.call("browser_navigate", { url: `${site.url}/` });
    const r = await h.call("browser_get_images", {});
    expect(r.count).toBe(2);
    expect(r.images).toEqual([
      { src: `${site.url}/img/cat.png`, alt: "A sleeping cat", width: 1, height: 1 },
      { src: `${site.url}/img/dog.png`, alt: "A dog", width: 1, height: 1 },
    ]);
  });

  it("numbers elements inside iframes in the same sequence and acts on them", async () => {
    const r = await h.call("browser_navigate", { url: `${site.url}/iframe` });
    const snap = String(r.snapshot);
    expect(snap).toMatch(/- iframe:\n(\s+- .*\n)*\s+- textbox "Name" @e\d+/);
    const name = refOf(snap, 'textbox "Name"');
    expect((await h.call("browser_type", { ref: name, text: "Framed" })).success).toBe(true);
    const value = await h.call("browser_console", {
      expression: "document.querySelector('iframe').contentDocument.querySelector('input').value",
    });
    expect(value.result).toBe("Framed");
  });

  it("keeps links that open a new tab in the same page", async () => {
    const page = await h.call("browser_navigate", { url: `${site.url}/popup` });
    const r = await h.call("browser_click", { ref: refOf(page.snapshot, 'link "Open articles"') });
    expect(r.url).toBe(`${site.url}/articles`);
  });

  it("saves downloads under the work directory's downloads folder", async () => {
    const page = await h.call("browser_navigate", { url: `${site.url}/download` });
    const r = await h.call("browser_click", { ref: refOf(page.snapshot, 'link "Get the data"') });
    expect(r.downloads).toEqual([`${h.root}/downloads/data.csv`]);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(`${h.root}/downloads/data.csv`, "utf8")).toBe("a,b\n1,2\n");
  });

  it("cuts long snapshots with a note", async () => {
    const small = await createBrowserHarness({ settings: { snapshotMaxChars: 600 } });
    try {
      const r = await small.call("browser_navigate", { url: `${site.url}/long` });
      expect(r.truncated).toBe(true);
      expect(String(r.snapshot).length).toBeLessThan(900);
      expect(String(r.snapshot)).toMatch(
        /\[\.\.\. \d+ more lines not shown \(snapshot over 600 characters\)/,
      );
      expect(String(r.snapshot)).not.toContain("Bottom marker");
    } finally {
      await small.dispose();
    }
  });

  it("answers tools other than navigate with an error while no page is open", async () => {
    const r = await h.callAs("fresh-task", "browser_snapshot");
    expect(r.error).toBe("No page is open: call browser_navigate first.");
    const click = await h.callAs("fresh-task", "browser_click", { ref: "@e1" });
    expect(click.error).toBe("No page is open: call browser_navigate first.");
  });

  it("rejects bad arguments the model can fix", async () => {
    await h.call("browser_navigate", { url: `${site.url}/` });
    expect((await h.call("browser_click", { ref: "@e99" })).error).toMatch(/Unknown ref @e99: .*@e1 to @e3/);
    expect((await h.call("browser_press", { key: "NoSuchKey" })).error).toMatch(
      /Could not press 'NoSuchKey'/,
    );
    expect((await h.call("browser_navigate", { url: "file:///etc/passwd" })).error).toMatch(
      /Only http and https pages can be opened/,
    );
  });
});
