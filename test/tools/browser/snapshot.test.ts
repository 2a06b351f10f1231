import { describe, expect, it } from "vitest";
import {
  parseLine,
  RefTable,
  renderSnapshot,
  truncateSnapshot,
} from "../../../src/tools/builtin/browser/snapshot.js";

// The shape of Playwright's "ai" snapshots (captured from Chromium, trimmed).
const PAGE = `- generic [active] [ref=e1]:
  - navigation [ref=e2]:
    - link "Home" [ref=e3] [cursor=pointer]:
      - /url: /
    - link "About us" [ref=e4] [cursor=pointer]:
      - /url: /about
  - heading "Sign up" [level=1] [ref=e5]
  - paragraph [ref=e6]: Tell us who you are.
  - generic [ref=e7]:
    - generic [ref=e8]:
      - text: Name
      - textbox "Name" [ref=e9]
    - checkbox "Agree" [checked] [ref=e10]
    - combobox "Colour" [ref=e11]:
      - option "Red" [selected]
      - option "Green"
    - button "Send" [ref=e12]
  - generic [ref=e13] [cursor=pointer]: Clickable card
  - link "Docs" [ref=e14] [cursor=pointer]:
    - generic [ref=e15] [cursor=pointer]: Docs
  - iframe [ref=e16]:
    - generic [ref=f1e1]:
      - button "Inside" [ref=f1e2]
  - img "Logo" [ref=e17]`;

describe("renderSnapshot", () => {
  it("puts @eN refs on the lines of interactive elements only, numbered in page order", () => {
    const r = renderSnapshot(PAGE, new RefTable(), false);
    expect(r.text).toBe(
      [
        "- navigation:",
        '  - link "Home" @e1',
        '  - link "About us" @e2',
        '- heading "Sign up" [level=1]',
        "- paragraph: Tell us who you are.",
        "- text: Name",
        '- textbox "Name" @e3',
        '- checkbox "Agree" [checked] @e4',
        '- combobox "Colour" @e5:',
        '  - option "Red" [selected]',
        '  - option "Green"',
        '- button "Send" @e6',
        "- generic @e7: Clickable card",
        '- link "Docs" @e8:',
        "  - text: Docs",
        "- iframe:",
        '  - button "Inside" @e9',
        '- img "Logo"',
      ].join("\n"),
    );
    expect(r.refs).toBe(9);
  });

  it("keeps link URLs in full snapshots", () => {
    const r = renderSnapshot(PAGE, new RefTable(), true);
    expect(r.text).toContain('- link "Home" @e1:\n    - /url: /\n');
    expect(r.text).toContain('- link "About us" @e2:\n    - /url: /about');
  });

  it("keeps an element's number across snapshots and numbers new elements after the others", () => {
    const table = new RefTable();
    renderSnapshot(PAGE, table, false);
    const next = renderSnapshot(
      `- button "New" [ref=e30]\n- link "Home" [ref=e3] [cursor=pointer]`,
      table,
      false,
    );
    expect(next.text).toBe('- button "New" @e10\n- link "Home" @e1');
    expect(table.resolve("@e10")?.playwrightRef).toBe("e30");
    table.reset();
    expect(table.resolve("@e1")).toBeUndefined();
    expect(renderSnapshot(`- button "Again" [ref=e31]`, table, false).text).toBe('- button "Again" @e1');
  });

  it("resolves @eN, eN and N", () => {
    const table = new RefTable();
    renderSnapshot(PAGE, table, false);
    for (const ref of ["@e3", "e3", "3", " @E3 "]) {
      expect(table.resolve(ref)).toEqual({ playwrightRef: "e9", role: "textbox", label: 'textbox "Name"' });
    }
    expect(table.resolve("@e99")).toBeUndefined();
    expect(table.resolve("button")).toBeUndefined();
  });

  it("reads keys Playwright had to quote (names with ': ' or quotes in them)", () => {
    const raw = `- 'heading "Price: 5 o''clock" [level=2] [ref=e2]'\n- 'link "Re: hello" [ref=e3] [cursor=pointer]':\n  - /url: /re`;
    expect(renderSnapshot(raw, new RefTable(), false).text).toBe(
      `- heading "Price: 5 o'clock" [level=2]\n- link "Re: hello" @e1`,
    );
    expect(parseLine(`  - 'button "a: b" [ref=e7]': extra text`)).toMatchObject({
      depth: 1,
      role: "button",
      name: '"a: b"',
      ref: "e7",
      tail: "extra text",
    });
  });

  it("collects the viewport boxes of the page's own refs (frames have boxes of their own)", () => {
    const raw = [
      `- button "A" [ref=e1] [box=10,20,30,40]`,
      `- paragraph [ref=e2] [box=0,0,5,5]: text`,
      `- iframe [ref=e3] [box=0,100,300,150]:`,
      `  - button "B" [ref=f1e2] [box=8,8,20,20]`,
    ].join("\n");
    const r = renderSnapshot(raw, new RefTable(), false);
    expect(r.text).toBe('- button "A" @e1\n- paragraph: text\n- iframe:\n  - button "B" @e2');
    expect(r.boxes).toEqual([{ ref: 1, x: 10, y: 20, width: 30, height: 40 }]);
  });

  it("clips long text in compact snapshots and keeps it whole in full ones", () => {
    const long = "word ".repeat(100).trim();
    const raw = `- paragraph [ref=e1]: ${long}`;
    expect(renderSnapshot(raw, new RefTable(), false).text).toBe(`- paragraph: ${long.slice(0, 200)}…`);
    expect(renderSnapshot(raw, new RefTable(), true).text).toBe(`- paragraph: ${long}`);
  });

  it("shows the first options of a long dropdown in compact snapshots, all of them in full ones", () => {
    const options = Array.from({ length: 12 }, (_, i) => `    - option "Country ${i + 1}"`).join("\n");
    const raw = `- generic [ref=e1]:\n  - combobox "Country" [ref=e2]:\n${options}\n  - button "Go" [ref=e3]`;
    const compact = renderSnapshot(raw, new RefTable(), false).text.split("\n");
    expect(compact).toEqual([
      '- combobox "Country" @e1:',
      ...Array.from({ length: 8 }, (_, i) => `  - option "Country ${i + 1}"`),
      "  - text: … 4 more options",
      '- button "Go" @e2',
    ]);
    expect(renderSnapshot(raw, new RefTable(), true).text).toContain('option "Country 12"');
    // At the end of the snapshot too.
    const last = renderSnapshot(`- combobox "C" [ref=e1]:\n${options}`, new RefTable(), false).text;
    expect(last.endsWith("  - text: … 4 more options")).toBe(true);
  });

  it("keeps lines of shapes it does not know, without Playwright's refs", () => {
    expect(renderSnapshot(`- ??? strange [ref=e4] thing`, new RefTable(), false).text).toBe(
      "- ??? strange thing",
    );
  });
});

describe("truncateSnapshot", () => {
  it("returns short snapshots unchanged", () => {
    expect(truncateSnapshot("- a\n- b", 100)).toEqual({ text: "- a\n- b", truncated: false });
  });

  it("cuts at a line boundary and says how much is left out and what to do", () => {
    const text = Array.from({ length: 50 }, (_, i) => `- listitem: line ${i}`).join("\n");
    const r = truncateSnapshot(text, 200);
    expect(r.truncated).toBe(true);
    const [kept, note] = [
      r.text.slice(0, r.text.lastIndexOf("\n")),
      r.text.slice(r.text.lastIndexOf("\n") + 1),
    ];
    expect(kept.length).toBeLessThanOrEqual(200);
    expect(text.startsWith(kept)).toBe(true);
    expect(kept.endsWith("line 9")).toBe(true);
    expect(note).toMatch(/^\[\.\.\. 40 more lines not shown \(snapshot over 200 characters\): scroll/);
  });
});
