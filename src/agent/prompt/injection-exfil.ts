/**
 * A secret variable handed to a network client (`curl ... $OPENAI_API_KEY`) or spliced into a URL.
 * Two shapes are harmless and common in docs: a key sent to its own provider
 * (`curl https://api.openai.com/v1/models -H "Authorization: Bearer $OPENAI_API_KEY"`) and a token
 * sent to a server on this machine (`curl -H "Authorization: Bearer $ADMIN_TOKEN" http://localhost:8080`).
 * A line passes when it names at least one host and every host is local or the secrets' own provider.
 */

const SECRET_SUFFIX = String.raw`(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)S?(?!\w)`;
const CLIENT_OR_URL = new RegExp(
  String.raw`\b(?:curl|wget|xh|nc|ncat|netcat|socat|invoke-webrequest|invoke-restmethod|iwr|irm)\b[^\n]{0,2000}?\$\{?\w*?${SECRET_SUFFIX}|https?://[^\s"'<>]{0,2000}?\$\{?\w*?${SECRET_SUFFIX}`,
  "gi",
);
const VARIABLE = /\$\{?([A-Za-z_]\w*)/g;
const IS_SECRET = new RegExp(`${SECRET_SUFFIX}$`, "i");
/** Hosts of URLs, after any user-info (`https://api.openai.com@evil.example` is evil.example). */
const URL_HOST = /[a-z][a-z0-9+.-]*:\/\/(?:[^\s/@"'`]+@)?(\[[0-9a-f:]+\]|[^\s/:"'`?#)]+)/gi;
/** Bare host names a client would also contact (`curl evil.example`). */
const BARE_HOST = /(?<![\w./:@-])((?:[a-z0-9-]+\.)+[a-z]{2,})(?=[:/\s"'`?#),]|$)/gi;
const LOCAL_HOST = /^(?:localhost|(?:[\w-]+\.)*localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\])$/i;

const PROVIDERS: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^OPENAI_/i, ["openai.com"]],
  [/^ANTHROPIC_/i, ["anthropic.com"]],
  [/^(?:GITHUB|GH)_/i, ["github.com", "githubusercontent.com"]],
  [/^OPENROUTER_/i, ["openrouter.ai"]],
  [/^(?:GEMINI|GOOGLE)_/i, ["googleapis.com"]],
  [/^(?:HF|HUGGINGFACE|HUGGING_FACE)_/i, ["huggingface.co"]],
  [/^MISTRAL_/i, ["mistral.ai"]],
  [/^GROQ_/i, ["groq.com"]],
  [/^DEEPSEEK_/i, ["deepseek.com"]],
  [/^XAI_/i, ["x.ai"]],
  [/^NOUS_/i, ["nousresearch.com"]],
];

const lineAt = (text: string, index: number): string => {
  const end = text.indexOf("\n", index);
  return text.slice(text.lastIndexOf("\n", index) + 1, end === -1 ? text.length : end);
};

function staysTrusted(line: string): boolean {
  let domains: string[] | undefined = [];
  for (const [, name] of line.matchAll(VARIABLE)) {
    if (!IS_SECRET.test(name as string)) continue;
    const provider = PROVIDERS.find(([prefix]) => prefix.test(name as string));
    if (provider) domains?.push(...provider[1]);
    else domains = undefined;
  }
  const hosts = [...line.matchAll(URL_HOST), ...line.matchAll(BARE_HOST)].map((m) =>
    (m[1] as string).toLowerCase(),
  );
  const trusted = (h: string): boolean =>
    LOCAL_HOST.test(h) || (domains?.some((d) => h === d || h.endsWith(`.${d}`)) ?? false);
  return hosts.length > 0 && hosts.every(trusted);
}

/** True when some line sends a secret variable somewhere other than the secret's own provider. */
export function sendsSecretVariable(text: string): boolean {
  for (const m of text.matchAll(CLIENT_OR_URL)) if (!staysTrusted(lineAt(text, m.index))) return true;
  return false;
}
