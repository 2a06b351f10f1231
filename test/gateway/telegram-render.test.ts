import { describe, expect, it } from "vitest";
import { markdownToTelegramHtml, visibleText } from "../../src/gateway/platforms/telegram/render.js";
import { parseTelegramHtml } from "../support/fake-telegram-wire.js";

const html = markdownToTelegramHtml;

describe("markdown to Telegram HTML", () => {
  it("converts inline formatting", () => {
    expect(html("**bold** and __also bold__")).toBe("<b>bold</b> and <b>also bold</b>");
    expect(html("*italic* and _italic_")).toBe("<i>italic</i> and <i>italic</i>");
    expect(html("~~gone~~ and ||secret||")).toBe("<s>gone</s> and <tg-spoiler>secret</tg-spoiler>");
    expect(html("**bold with *italic* inside**")).toBe("<b>bold with <i>italic</i> inside</b>");
    expect(html("[the docs](https://example.com/a?b=1&c=2)")).toBe(
      '<a href="https://example.com/a?b=1&amp;c=2">the docs</a>',
    );
  });

  it("escapes everything that is not markup, and never formats code", () => {
    expect(html("if a < b && c > d")).toBe("if a &lt; b &amp;&amp; c &gt; d");
    expect(html("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html("run `rm -rf **/*.tmp <x>`")).toBe("run <code>rm -rf **/*.tmp &lt;x&gt;</code>");
    expect(html('```python\nprint("<b>" * 2)\n# **not bold**\n```')).toBe(
      '<pre><code class="language-python">print("&lt;b&gt;" * 2)\n# **not bold**</code></pre>',
    );
    expect(html("```\nplain block\n```")).toBe("<pre>plain block</pre>");
  });

  it("keeps words with underscores, lists and tables as text", () => {
    expect(html("call snake_case_name and my_var_")).toBe("call snake_case_name and my_var_");
    expect(html("- one\n- two\n* three\n1. four")).toBe("- one\n- two\n* three\n1. four");
    expect(html("| a | b |\n|---|---|\n| 1 | 2 |")).toBe("| a | b |\n|---|---|\n| 1 | 2 |");
    expect(html("2 * 3 * 4 = 24")).toBe("2 * 3 * 4 = 24");
    expect(html("see https://example.com/some_path_here")).toBe("see https://example.com/some_path_here");
  });

  it("turns headings bold and quotes into blockquotes", () => {
    expect(html("# Title\n## Sub *part*\ntext")).toBe("<b>Title</b>\n<b>Sub <i>part</i></b>\ntext");
    expect(html("> quoted **line**\n> second\nafter")).toBe(
      "<blockquote>quoted <b>line</b>\nsecond</blockquote>\nafter",
    );
  });

  it("leaves half-written markup (mid-stream) as text and runs an open fence to the end", () => {
    expect(html("this is **bol")).toBe("this is **bol");
    expect(html("text\n```ts\nconst a = 1 < 2;")).toBe(
      'text\n<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>',
    );
    expect(html("**a *b** c*")).toBe("<b>a *b</b> c*");
  });

  it("only ever produces HTML that Telegram accepts", () => {
    const samples = [
      "**a *b** c*",
      "*a **b* c**",
      "~~a **b~~ c**",
      "[**x**](https://e.com) and [y](javascript:alert(1))",
      "__a _b__ c_",
      "`unclosed code and **bold**",
      "&amp; &lt; already escaped?",
      "> **quote\n> still** quote",
      "||spoiler **bold||**",
      "# Heading with `code` and [link](https://x.y/z)\n```\n<pre>\n```",
    ];
    for (const sample of samples) {
      const parsed = parseTelegramHtml(html(sample));
      expect(parsed, sample).not.toHaveProperty("error");
    }
  });

  it("measures what the reader sees", () => {
    expect(visibleText(html("**a** < `b` [c](https://d.e)"))).toBe("a < b c");
  });
});
