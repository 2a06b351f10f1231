/**
 * The model's markdown as Telegram HTML (parse_mode HTML). Telegram's HTML knows a handful of tags
 * (b, i, s, code, pre, a, blockquote, tg-spoiler) and rejects a whole message over one unbalanced
 * tag, so this converter only emits tags it has closed, escapes everything else, and leaves markup it
 * does not understand (tables, lists, half-streamed `**`) as literal text. Code is never formatted.
 */

const escapeHtml = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

const escapeAttribute = (text: string): string => escapeHtml(text).replaceAll('"', "&quot;");

/** Renders markdown as Telegram HTML; a fence left open (mid-stream) runs to the end as code. */
export function markdownToTelegramHtml(markdown: string): string {
  const lines = markdown.replaceAll("\r\n", "\n").split("\n");
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !isClosingFence(lines[i]!, marker)) body.push(lines[i++]!);
      i++; // the closing fence (or past the end)
      out.push(codeBlock(body.join("\n"), fence[2] ?? ""));
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i]!))
        quoted.push(renderInline(lines[i++]!.replace(/^\s{0,3}>\s?/, "")));
      out.push(`<blockquote>${quoted.join("\n")}</blockquote>`);
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    out.push(heading ? `<b>${renderInline(heading[1]!)}</b>` : renderInline(line));
    i++;
  }
  return out.join("\n");
}

function isClosingFence(line: string, opener: string): boolean {
  const m = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1]![0] === opener[0] && m[1]!.length >= opener.length;
}

function codeBlock(code: string, language: string): string {
  const lang = /^[\w+#.-]{1,32}$/.test(language) ? language : "";
  const body = escapeHtml(code);
  return lang ? `<pre><code class="language-${lang}">${body}</code></pre>` : `<pre>${body}</pre>`;
}

/** One line: code spans first (never formatted), then links and bare URLs, then emphasis. */
function renderInline(text: string): string {
  let html = "";
  let last = 0;
  for (const m of text.matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)) {
    html += renderLinks(text.slice(last, m.index));
    html += `<code>${escapeHtml(m[2]!)}</code>`;
    last = m.index + m[0].length;
  }
  return html + renderLinks(text.slice(last));
}

const LINK =
  /\[([^\]\n]+)\]\(\s*<?((?:https?|tg|mailto):[^\s)>]+)>?(?:\s+"[^"]*")?\s*\)|<?(https?:\/\/[^\s<>]+)>?/g;

function renderLinks(text: string): string {
  let html = "";
  let last = 0;
  for (const m of text.matchAll(LINK)) {
    html += renderEmphasis(text.slice(last, m.index));
    if (m[1] !== undefined) html += `<a href="${escapeAttribute(m[2]!)}">${renderEmphasis(m[1])}</a>`;
    else html += escapeHtml(m[3]!); // Telegram links bare URLs itself; keep their underscores literal
    last = m.index + m[0].length;
  }
  return html + renderEmphasis(text.slice(last));
}

/** Emphasis on escaped text; a pair is converted only when what it wraps has balanced tags. */
const EMPHASIS: Array<[RegExp, string]> = [
  [/\*\*(?=\S)([^\n]*?\S)\*\*/g, "b"],
  [/(^|[^\w])__(?=\S)([^\n]*?\S)__(?!\w)/g, "b"],
  [/~~(?=\S)([^\n]*?\S)~~/g, "s"],
  [/\|\|(?=\S)([^\n]*?\S)\|\|/g, "tg-spoiler"],
  [/(^|[^\w*])\*(?=[^\s*])([^\n]*?[^\s*])\*(?![\w*])/g, "i"],
  [/(^|[^\w])_(?=[^\s_])([^\n]*?[^\s_])_(?!\w)/g, "i"],
];

function renderEmphasis(text: string): string {
  let html = escapeHtml(text);
  for (const [pattern, tag] of EMPHASIS) {
    html = html.replace(pattern, (whole: string, ...groups: unknown[]) => {
      const hasPrefix = pattern.source.startsWith("(^|");
      const prefix = hasPrefix ? String(groups[0]) : "";
      const inner = String(hasPrefix ? groups[1] : groups[0]);
      return balanced(inner) ? `${prefix}<${tag}>${inner}</${tag}>` : whole;
    });
  }
  return html;
}

function balanced(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z-]+)[^>]*>/g)) {
    if (m[1] === "") stack.push(m[2]!);
    else if (stack.pop() !== m[2]) return false;
  }
  return stack.length === 0;
}

/** What a reader sees of Telegram HTML: tags removed, entities decoded (Telegram counts this). */
export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
}
