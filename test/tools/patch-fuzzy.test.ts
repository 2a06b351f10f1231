import { describe, expect, it } from "vitest";
import { applyReplace, type ReplaceOutcome } from "../../src/tools/builtin/files/replace.js";

const edit = (file: string, oldString: string, newString: string, replaceAll = false): ReplaceOutcome =>
  applyReplace(file, oldString, newString, replaceAll, "f.txt");

/** The edited text and the strategy that matched; fails the test when the edit was refused. */
function edited(file: string, oldString: string, newString: string): { text: string; strategy: string } {
  const r = edit(file, oldString, newString);
  if (!r.ok) throw new Error(r.error);
  return { text: r.text, strategy: r.strategy };
}

const refused = (file: string, oldString: string, newString = "X"): string => {
  const r = edit(file, oldString, newString);
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.text)} via ${r.strategy}`);
  return r.error;
};

describe("spacing inside lines", () => {
  it("collapses runs of spaces and tabs and replaces the file's real span", () => {
    expect(edited("a = 0\nx  =  1\ny = 2\n", "x = 1\ny = 2", "x = 5\ny = 2")).toEqual({
      text: "a = 0\nx  =  5\ny = 2\n",
      strategy: "spacing",
    });
    expect(edited("key\tvalue\nother\n", "key value", "key value2").text).toBe("key\tvalue2\nother\n");
  });

  it("ends the span at the last matched character, keeping the following space", () => {
    expect(edited("foo   bar baz", "foo bar", "XY").text).toBe("XY baz");
    expect(edited("result = compute(a,  b) + tail\n", "compute(a, b)", "compute(a, b, c)").text).toBe(
      "result = compute(a,  b, c) + tail\n",
    );
  });

  it("keeps the file's spacing on lines and line ends that new_string repeats", () => {
    const file = "cfg = {\n  name:   'x',\n  size:   10,\n}\n";
    expect(edited(file, "  name: 'x',\n  size: 10,", "  name: 'x',\n  size: 20,").text).toBe(
      "cfg = {\n  name:   'x',\n  size:   20,\n}\n",
    );
    // Trailing whitespace of a repeated line is the file's too.
    expect(edited("a  b   \nc\n", "a b\nc", "a b\nd").text).toBe("a  b   \nd\n");
  });

  it("tolerates different indentation together with inner spacing, re-indenting the replacement", () => {
    const file = "def f():\n    x  =  1\n    return x\n";
    expect(edited(file, "x = 1\nreturn x", "x = 2\ny = x\nreturn y")).toEqual({
      text: "def f():\n    x  =  2\n    y = x\n    return y\n",
      strategy: "spacing",
    });
  });

  it("never adds or removes spacing or joins lines", () => {
    expect(refused("foo( a, b )\n", "foo(a,b)")).toMatch(/not found/);
    expect(refused("foo(a,b)\n", "foo( a, b )")).toMatch(/not found/);
    expect(refused("a b\n", "ab")).toMatch(/not found/);
    expect(refused("ab\n", "a b")).toMatch(/not found/);
    expect(refused("a\nb\n", "a b")).toMatch(/not found/);
    expect(refused("x == 1\n", "x = 1")).toMatch(/not found/);
  });

  it("refuses two matches rather than guessing, and replace_all takes both", () => {
    const file = "if a:\n    return  x\nelse:\n    return   x\n";
    expect(refused(file, "return x", "return y")).toMatch(
      /matches 2 times ignoring spacing inside lines.*lines 2, 4/,
    );
    const all = edit(file, "return x", "return y", true);
    expect(all).toMatchObject({ ok: true, replacements: 2, strategy: "spacing" });
  });

  it("lets an exact match win over a spaced one elsewhere", () => {
    const r = edited("x  =  1\nx = 1\n", "x = 1", "x = 2");
    expect(r).toEqual({ text: "x  =  1\nx = 2\n", strategy: "exact" });
  });
});

describe("typographic equivalents", () => {
  it("matches -- with em and en dashes and writes new text with the file's dash", () => {
    expect(edited("return value\u2014fallback\n", "return value--fallback", "return value--default")).toEqual(
      {
        text: "return value\u2014default\n",
        strategy: "unicode",
      },
    );
    expect(edited("pages 10\u201320 of it\n", "pages 10--20 of", "pages 10--25 of").text).toBe(
      "pages 10\u201325 of it\n",
    );
    // A spaced hyphen stands for a spaced dash (or minus); a hyphen inside a word never does.
    expect(edited("offset = value \u2212 1\n", "offset = value - 1", "offset = delta - 1").text).toBe(
      "offset = delta \u2212 1\n",
    );
    expect(edited("a \u2014 b\n", "a - b", "well-known a - b").text).toBe("well-known a \u2014 b\n");
  });

  it("matches ... with an ellipsis, keeping it where new text has one", () => {
    expect(
      edited("Wait for it\u2026and done\n", "Wait for it...and done", "Wait for it...then done").text,
    ).toBe("Wait for it\u2026then done\n");
  });

  it("maps straight quotes to the file's curly ones, opening and closing by position", () => {
    const file = "She said \u201chello\u201d to me.\n";
    expect(edited(file, 'She said "hello" to me.', 'She said "goodbye" and "see you".').text).toBe(
      "She said \u201cgoodbye\u201d and \u201csee you\u201d.\n",
    );
    expect(edited("it\u2019s fine\n", "it's fine", "it's great, isn't it").text).toBe(
      "it\u2019s great, isn\u2019t it\n",
    );
    // German quotes open low and close high; a side old_string never showed takes the partner.
    expect(edited("Er sagte \u201eHallo\u201c.\n", 'Er sagte "Hallo".', 'Er sagte "Tschüss".').text).toBe(
      "Er sagte \u201eTschüss\u201c.\n",
    );
    expect(edited("\u201cBegin here\n", '"Begin here', '"Begin" here').text).toBe("\u201cBegin\u201d here\n");
  });

  it("writes straight quotes when the file has them and old_string was curly", () => {
    expect(edited('say "hi" now\n', "say \u201chi\u201d now", "say \u201cbye\u201d now").text).toBe(
      'say "bye" now\n',
    );
  });

  it("learns no mapping from a file that mixes styles, but keeps its text where new_string repeats it", () => {
    const file = 'a \u201cb\u201d and "c"\n';
    expect(edited(file, 'a "b" and "c"', 'a "b" and "c" or "d"').text).toBe(
      'a \u201cb\u201d and "c" or "d"\n',
    );
    expect(edited(file, 'a "b" and "c"', 'a "x" and "c"').text).toBe('a \u201cx\u201d and "c"\n');
  });

  it("treats non-breaking, thin and ideographic spaces as spaces and keeps them where text repeats", () => {
    expect(
      edited(
        "\u6a19\u984c\u3000\u7b2c\u4e00\u7ae0\n",
        "\u6a19\u984c \u7b2c\u4e00\u7ae0",
        "\u6a19\u984c \u7b2c\u4e8c\u7ae0",
      ).text,
    ).toBe("\u6a19\u984c\u3000\u7b2c\u4e8c\u7ae0\n");
    expect(edited("100\u202fkm away\n", "100 km away", "100 km further").text).toBe("100\u202fkm further\n");
  });

  it("ignores zero-width characters in the file and keeps them outside the edit", () => {
    expect(edited("ab\u200bc def\n", "abc", "xyz").text).toBe("xyz def\n");
  });

  it("never takes a different token for a typographic twin", () => {
    // Each file has typography elsewhere, so the typographic strategy does run.
    expect(refused("a--b \u2014\n", "a-b")).toMatch(/not found/);
    expect(refused("a -- b \u2014\n", "a - b")).toMatch(/not found/);
    expect(refused("x = 'a' \u2014\n", 'x = "a"')).toMatch(/not found/);
    expect(refused("i\u2014;\n", "i--;")).toMatch(/not found/);
    expect(refused("f(\u2026args)\n", "f(...args)")).toMatch(/not found/);
  });

  it("leaves options, comments, rules and spreads in new text alone", () => {
    const file = "Use it \u2014 carefully\n";
    const r = edited(
      file,
      "Use it -- carefully",
      "Use it -- carefully\n<!-- note -->\n---\nrun --force f(...args)",
    );
    expect(r.text).toBe("Use it \u2014 carefully\n<!-- note -->\n---\nrun --force f(...args)\n");
  });

  it("refuses an ambiguous typographic match", () => {
    expect(refused("\u201cA\u201d\n\u201eA\u201c\n", '"A"')).toMatch(/matches 2 times ignoring typographic/);
  });
});

describe("literal \\t in new_string", () => {
  it("becomes a tab in indentation when old_string's \\t met real tabs", () => {
    const file = 'def hello():\n\tprint("before")\n';
    expect(edited(file, 'def hello():\n\\tprint("before")\n', 'def hello():\n\\tprint("after")\n')).toEqual({
      text: 'def hello():\n\tprint("after")\n',
      strategy: "escapes",
    });
  });

  it("becomes a tab in indentation of a tab-indented file even after an exact match", () => {
    const file = 'func main() {\n\tfmt.Println("a")\n}\n';
    const r = edited(file, '\tfmt.Println("a")', '\\tfmt.Println("a")\n\\t\\tfmt.Println("b")');
    expect(r).toEqual({
      text: 'func main() {\n\tfmt.Println("a")\n\t\tfmt.Println("b")\n}\n',
      strategy: "exact",
    });
  });

  it("stays as written inside string literals, in the file and in new text", () => {
    const file = '\tprint("a\\tb")\n';
    const r = edited(file, '\\tprint("a\\tb")', '\\tprint("a\\tb", end="")');
    expect(r).toEqual({ text: '\tprint("a\\tb", end="")\n', strategy: "escapes" });
    const exact = edited("\tx = 1\n\ty = 2\n", "\ty = 2", '\ty = "\\t"');
    expect(exact.text).toBe('\tx = 1\n\ty = "\\t"\n');
    // Mid-line, a span's first characters are not indentation.
    expect(edited("\tsep = 1\n", "1", "\\tx").text).toBe("\tsep = \\tx\n");
  });

  it("leaves a literal \\n in new_string alone after a match that needed no escapes", () => {
    expect(edited("line1\nline2\n", "line1\nline2", "alpha\\nbeta").text).toBe("alpha\\nbeta\n");
  });

  it("stays as written in a space-indented file or where lines start with a literal \\t", () => {
    expect(edited("if x:\n    y = 1\n", "    y = 1", "\\ty = 2").text).toBe("if x:\n\\ty = 2\n");
    const table = 'rows = [\n\t"a",\n\\t"b",\n]\n';
    expect(edited(table, '\\t"b",', '\\t"c",').text).toBe('rows = [\n\t"a",\n\\t"c",\n]\n');
  });

  it("undoes an escape kind everywhere only when old_string escaped it throughout", () => {
    expect(
      edited(
        'const s = "a";\nconsole.log(s);\n',
        'const s = \\"a\\";\\nconsole.log(s);',
        'const s = \\"b\\";\\nlog(s);',
      ).text,
    ).toBe('const s = "b";\nlog(s);\n');
    // \r\n written literally in a CRLF file.
    expect(edited("line1\r\nline2\r\n", "line1\\r\\nline2\\r\\n", "replaced\\r\\n").text).toBe(
      "replaced\r\n",
    );
    // Tab-separated data: old_string's \t met tabs inside lines, so new_string's do too.
    expect(edited("a\tb\tc\n", "a\\tb\\tc", "a\\tb\\td").text).toBe("a\tb\td\n");
  });
});
