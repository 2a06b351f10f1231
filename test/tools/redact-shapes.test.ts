import { describe, expect, it } from "vitest";
import { expectUnchanged, redact } from "./redact-support.js";

/** Token literals are assembled from parts so no complete provider token sits in the source. */
const t = (prefix: string, body: string): string => prefix + body;
const ALNUM = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY";

describe("provider keys by prefix", () => {
  const cases: [string, string][] = [
    [t("xai-", ALNUM), "xai_key"],
    [t("fw_", ALNUM), "fireworks_key"],
    [t("tvly-", ALNUM), "tavily_key"],
    [t("tvly-dev-", ALNUM), "tavily_key"],
    [t("exa_", "XY789abcdef01234"), "exa_key"],
    [t("pplx-", ALNUM), "perplexity_key"],
    [t("fal_", ALNUM), "fal_key"],
    [t("ntn_", ALNUM), "notion_token"],
    [t("xapp-", "1-A0123456789-1234567890123-abcdef"), "slack_token"],
    [t("xoxb-", "1234567890-abcdefghij"), "slack_token"],
    [t("AIza", "SyA-0123456789abcdefghijklmnopqrst-"), "google_api_key"],
    [t("sk_live_", ALNUM), "stripe_key"],
    [t("sk_test_", ALNUM), "stripe_key"],
    [t("rk_live_", ALNUM), "stripe_key"],
    [t("sk-ant-", `api03-${ALNUM}`), "anthropic_key"],
    [t("hf_", ALNUM), "hf_token"],
    [t("gsk_", ALNUM), "groq_key"],
    [t("glpat-", "Zx9AbCdEfGhIjKlMnOpQ"), "gitlab_token"],
    [t("glrt-", `${"A".repeat(27)}.01.${"a".repeat(9)}`), "gitlab_token"],
    [t("npm_", `${ALNUM}0123`), "npm_token"],
    [t("dop_v1_", "0123456789abcdef".repeat(4)), "digitalocean_token"],
    [t("ghp_", "abcdefghij1234567890"), "github_token"],
    [t("gho_", "abcdefghij123456"), "github_token"],
    [t("github_pat_", "11ABCDEFG0123456789_ab"), "github_token"],
    [t("AKIA", "IOSFODNN7EXAMPLE"), "aws_access_key"],
    [t("ASIA", "IOSFODNN7EXAMPLE"), "aws_access_key"],
    [t("AGE-SECRET-KEY-1", "QQ".repeat(29)), "age_secret_key"],
  ];
  it.each(cases)("hides %s as %s and keeps the text around it", (token, name) => {
    expect(redact(`key ${token} in output`)).toBe(`key [REDACTED:${name}] in output`);
    expect(redact(`"${token}"`)).toBe(`"[REDACTED:${name}]"`);
  });

  it("leaves prefixes with short bodies or inside longer words alone", () => {
    expectUnchanged([
      "xai-tooshort",
      "glpat-short",
      "fw_tooshort fpk_tooshort",
      "ghp_short sk-short hf_hub_download",
      `my${t("glpat-", "AbCdEfGhIjKlMnOpQrSt")}`,
      "the glossary explains gitlab tokens",
      "exa_search_results and fal_client_upload",
    ]);
  });
});

describe("JWTs and Telegram bot tokens", () => {
  const header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";
  const payload = "eyJzdWIiOiIxMjM0NTY3ODkwIn0";

  it("hides a signed JWT and a two-part one, keeping the text around them", () => {
    expect(redact(`before ${header}.${payload}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c after`)).toBe(
      "before [REDACTED:jwt] after",
    );
    expect(redact(`id_token: ${header}.${payload}`)).toBe("id_token: [REDACTED:jwt]");
  });

  it("hides the secret half of a bot token and keeps the bot id", () => {
    const secret = t("AAHdqTcvCH1vGWJxfSeofSAs0K", "5PALDsaw1");
    expect(redact(`https://api.telegram.org/bot123456789:${secret}/getMe`)).toBe(
      "https://api.telegram.org/bot123456789:[REDACTED:telegram_token]/getMe",
    );
    expect(redact(`token 1234567890:${secret} set`)).toBe("token 1234567890:[REDACTED:telegram_token] set");
  });

  it("hides one part of a JWT standing alone: a header, claims, a token cut at its first dot", () => {
    expect(redact(`token ${header} alone`)).toBe("token [REDACTED:jwt] alone");
    expect(redact("eyJhbGciOiJIUzI1NiJ9 alone is only a header")).toBe(
      "[REDACTED:jwt] alone is only a header",
    );
    expect(redact(`claims=${payload}`)).toBe("claims=[REDACTED:jwt]");
    expect(redact(`"${header}."`)).toBe('"[REDACTED:jwt]."');
  });

  it("leaves base64 data, base64 JSON that is no JWT, `timestamp:digest` pairs and Discord mentions alone", () => {
    // {"version":3,"sources":["a.ts"]} and {"apiVersion":"v1"}: base64 JSON, but no JWT field first.
    const sourceMap = Buffer.from('{"version":3,"sources":["a.ts"]}').toString("base64url");
    const manifest = Buffer.from('{"apiVersion":"v1","kind":"Secret"}').toString("base64");
    expectUnchanged([
      '{"image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}',
      "1700000000:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934c",
      "Hello <@222589316709220353>",
      `//# sourceMappingURL=data:application/json;base64,${sourceMap}`,
      `data: ${manifest}`,
      "eyJ is the base64 form of a JSON object's opening",
    ]);
  });
});

describe("Authorization and API key headers", () => {
  it.each([
    ["Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:basic_auth]"],
    ["authorization: bearer abc.def-ghi_jkl012345", "authorization: bearer [REDACTED:bearer_token]"],
    ["AUTHORIZATION: Basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0", "AUTHORIZATION: Basic [REDACTED:basic_auth]"],
    ["Authorization: token short123", "Authorization: token [REDACTED:authorization]"],
    ["Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: Basic [REDACTED:basic_auth]"],
    ["Authorization: opaqueKey0123456789abc", "Authorization: [REDACTED:authorization]"],
    ["x-api-key: opaque-provider-key-1234567890", "x-api-key: [REDACTED:x-api-key]"],
    ["api-key: anotherOpaqueSecret1234567", "api-key: [REDACTED:api-key]"],
    ["X-Auth-Token: 0123abcd", "X-Auth-Token: [REDACTED:X-Auth-Token]"],
    ["> X-Goog-Api-Key: opaque123", "> X-Goog-Api-Key: [REDACTED:X-Goog-Api-Key]"],
  ])("%s", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("keeps the quotes of a curl -H argument and the URL after it", () => {
    expect(redact(`curl -H 'Authorization: Bearer opaque0123456789abcdef' https://x.example`)).toBe(
      "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://x.example",
    );
    expect(redact('curl -H "x-api-key: local-VERYsecret-999888" https://api.example.com/v1')).toBe(
      'curl -H "x-api-key: [REDACTED:x-api-key]" https://api.example.com/v1',
    );
    expect(redact(`git -c http.extraheader="AUTHORIZATION: basic eC1hY2Nlc3M6c2VjcmV0" push`)).toBe(
      'git -c http.extraheader="AUTHORIZATION: basic [REDACTED:basic_auth]" push',
    );
  });

  it("leaves prose, placeholders and variables alone", () => {
    expectUnchanged([
      "the authorization model is fully open",
      "Authorization: required",
      "I'm the bearer of bad news: the deploy failed",
      'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com',
      "Authorization: Bearer <token>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template reference is the input under test.
      "x-api-key: ${API_KEY}",
    ]);
  });
});

describe("credentials inside URLs", () => {
  it.each([
    ["postgres://user:pw@host", "postgres://user:[REDACTED:password]@host"],
    [
      "postgresql://admin:realpassword@db.internal:5432/app",
      "postgresql://admin:[REDACTED:password]@db.internal:5432/app",
    ],
    ["mysql://root:s3cret@localhost:3306/db", "mysql://root:[REDACTED:password]@localhost:3306/db"],
    [
      "mongodb+srv://u:mongo55@cluster0.x.mongodb.net/t",
      "mongodb+srv://u:[REDACTED:password]@cluster0.x.mongodb.net/t",
    ],
    ["redis://:redispw@cache:6379/0", "redis://:[REDACTED:password]@cache:6379/0"],
    ["rediss://default:abcDEF123@host:6380", "rediss://default:[REDACTED:password]@host:6380"],
    ["amqp://guest:amqp33@rabbit:5672/", "amqp://guest:[REDACTED:password]@rabbit:5672/"],
    ["https://user:pw@host/x", "https://user:[REDACTED:password]@host/x"],
    ["ssh://deploy:pw@host", "ssh://deploy:[REDACTED:password]@host"],
    ["ftp://u:p@ftp.example.com/files", "ftp://u:[REDACTED:password]@ftp.example.com/files"],
    [
      "git remote set-url origin https://MYPASSWORDWASDISPLAYEDHERE@github.com/u/r.git",
      "git remote set-url origin https://[REDACTED:url_token]@github.com/u/r.git",
    ],
    ["ssh://longtoken1234567@gitlab.com/p.git", "ssh://[REDACTED:url_token]@gitlab.com/p.git"],
  ])("%s", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("hides a password in a connection string inside a sentence", () => {
    expect(redact("connected via postgres://user:s3cr3tpw@host:5432/db ok")).toBe(
      "connected via postgres://user:[REDACTED:password]@host:5432/db ok",
    );
  });

  it("leaves user names, templates, e-mails and credential-free URLs alone", () => {
    expectUnchanged([
      "https://git@github.com/user/repo.git",
      "https://admin@example.com/x",
      "ssh://ubuntu@10.0.0.5",
      "git@github.com:org/repo.git",
      "https://example.com/search?q=user@example.com",
      "https://example.com:8080/users/john@doe.com/profile",
      'f"postgresql://{user}:{password}@{host}:{port}/{db}"',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template reference is the input under test.
      "postgres://app:${DB_PASSWORD}@db:5432/app",
      "redis://localhost:6379/0",
    ]);
  });

  it("hides curl -u passwords and .netrc passwords", () => {
    expect(redact("curl -u admin:s3cret https://x")).toBe("curl -u admin:[REDACTED:password] https://x");
    expect(redact('curl -s --user "bob:hunter2" https://x')).toBe(
      'curl -s --user "bob:[REDACTED:password]" https://x',
    );
    expect(redact("machine api.example.com login bob password s3cr3t")).toBe(
      "machine api.example.com login bob password [REDACTED:password]",
    );
    expectUnchanged([
      "docker run -u 1000:1000 img",
      "git push -u origin main",
      "curl -u $USER:$PASS https://x",
    ]);
  });
});

describe("keys that need a second look at their shape or their place", () => {
  it("hides Google keys, also cut short or run on", () => {
    const key = t("AIza", "SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI");
    expect(redact(`GOOGLE=${key}`)).toBe("GOOGLE=[REDACTED:google_api_key]");
    expect(redact(`key ${key.slice(0, -2)} cut`)).toBe("key [REDACTED:google_api_key] cut");
    expect(redact(`${key}_x9`)).toBe("[REDACTED:google_api_key]");
    expect(redact(`maps/api/js?key=${key}&callback=init`)).toBe(
      "maps/api/js?key=[REDACTED:google_api_key]&callback=init",
    );
  });

  it("hides Notion tokens and ElevenLabs keys of every length they come in", () => {
    expect(redact(`notion ${t("ntn_", "2023169985abC5moVwLD")} set`)).toBe(
      "notion [REDACTED:notion_token] set",
    );
    expect(redact(`xi ${t("sk_", "abc123def456ghi789jklmnopqrstu")} used`)).toBe(
      "xi [REDACTED:elevenlabs_key] used",
    );
    expect(redact(t("sk_", "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e"))).toBe(
      "[REDACTED:elevenlabs_key]",
    );
  });

  it("hides a short sk- key after a name that says key, and names the key where the name says more", () => {
    const short = t("sk-", "abc123def456");
    expect(redact(`key=${short}`)).toBe("key=[REDACTED:openai_key]");
    expect(redact(`--key ${short} --model x`)).toBe("--key [REDACTED:openai_key] --model x");
    expect(redact(`{"key": "${short}"}`)).toBe('{"key": "[REDACTED:openai_key]"}');
    expect(redact(JSON.stringify({ output: "ok", key: short }))).toBe(
      '{"output":"ok","key":"[REDACTED:openai_key]"}',
    );
    expect(redact(`OPENAI_KEY=${short}`)).toBe("OPENAI_KEY=[REDACTED:OPENAI_KEY]");
  });

  it("hides a literal Bearer token inside an f-string, and keeps the interpolated ones", () => {
    expect(redact(`headers = {"Authorization": f"Bearer ${t("sk-", "abc123def456")}"}`)).toBe(
      'headers = {"Authorization": f"Bearer [REDACTED:bearer_token]"}',
    );
    expect(redact(`auth = f"Bearer ${t("abc123", "def456")}"`)).toBe(
      'auth = f"Bearer [REDACTED:bearer_token]"',
    );
    expect(redact(`requests.get(u, headers={'Authorization': f'Bearer ${t("ab12", "cd34ef56")}'})`)).toBe(
      "requests.get(u, headers={'Authorization': f'Bearer [REDACTED:bearer_token]'})",
    );
    expectUnchanged([
      'headers = {"Authorization": f"Bearer {token}"}',
      "f\"Bearer {os.environ['TOKEN']}\"",
      'msg = f"Bearer tokens are sent in the Authorization header"',
    ]);
  });

  it("keeps words, hashes, ids and short prefixes that only look like keys", () => {
    expectUnchanged([
      "commit 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a (HEAD -> main)",
      "uuid 550e8400-e29b-41d4-a716-446655440000",
      "the sk_example_identifier_name_here_for_docs constant",
      "ntn_short and ntn_internal_notes",
      "sk-learn is a library; task-sk-abc123def456 is an id",
      "ask-me-anything-0123456789",
      "see key=value pairs like color=sk-blue",
      "AIzawesome",
    ]);
  });
});
