import { describe, expect, it } from "vitest";
import { redact } from "./redact-support.js";

/**
 * Text without a secret must come back byte for byte: as it is, as one block, inside a JSON tool
 * result and inside pretty-printed JSON. Each entry is something a tool really prints.
 */
const HARMLESS: readonly string[] = [
  // ports, paths, URLs without credentials
  "connecting to localhost:5432",
  "server listening on http://localhost:8080/api/v1 (pid 4123)",
  "/home/me/project/src/index.ts:42:13",
  "    at Object.<anonymous> (/home/me/project/src/index.ts:42:13)",
  "https://example.com/search?q=hello&page=2",
  "GET https://api.example.com/oauth/cb?code=abc123xyz789&state=csrf_ok",
  "/metrics?token_count=17&session_id=public",
  "redis://localhost:6379/0",
  "docker run -u 1000:1000 -p 5432:5432 postgres:16",
  // counts, limits and lengths named after secrets
  "password_length=12",
  "token_count: 42",
  "max_tokens=4096",
  "TOKEN_LIMIT=100",
  "TOKEN_TTL=3600",
  '{"usage": {"prompt_tokens": 512, "completion_tokens": 64, "total_tokens": 576}}',
  '{"max_tokens": 4096, "temperature": 0.7, "model": "gpt-4o"}',
  "the tokenizer splits on whitespace; set max_new_tokens=256.",
  "num_key_value_heads=8",
  "password_min_length: 12\npassword_required: true",
  "x-ratelimit-remaining-tokens: 39000",
  // flags that name a file or a limit, empty values, placeholders, prose
  "--password-file ./x",
  "--token-limit 100",
  "password: ",
  "DB_PASSWORD=",
  "set your password in the UI",
  "Password: the one you chose during install",
  "Enter your API key when prompted; the token is stored in ~/.hermes/.env",
  "the authorization model is fully open",
  "I'm the bearer of bad news: the deploy failed",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template reference is the input under test.
  "token: ${GITHUB_TOKEN}",
  "API_KEY=<your-api-key>",
  "OPENAI_API_KEY=sk-...",
  "KEYBOARD=us\nPASSAGE=notsecret",
  "Secretary: JanetYellen",
  // hashes, ids, encoded data
  "commit 3f786850e387550fdab836ed7e6dc881de23001b",
  "Merge: 3f78685 9fceb02",
  "550e8400-e29b-41d4-a716-446655440000",
  "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR",
  '{"image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}',
  "1700000000:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934c",
  // people, hosts and remotes
  "contact ada@example.org for access",
  "git@github.com:org/repo.git",
  "https://git@github.com/user/repo.git",
  "ssh ubuntu@10.0.0.5 -p 2222",
  "Author: Ada Lovelace <ada@example.org>",
  // environment dumps without secrets
  "HOME=/home/user\nSHELL=/bin/bash\nPATH=/usr/local/bin:/usr/bin\nTERM=dumb",
  "SSH_AUTH_SOCK=/tmp/ssh-agent.sock\nGIT_AUTHOR_NAME=Ada\nTOKENIZERS_PARALLELISM=false",
  "GOOGLE_APPLICATION_CREDENTIALS=/home/me/creds.json",
  "ENV NODE_ENV=production",
  // source code that handles secrets without holding one
  'const password = input("pw");\nconst token = getToken(user);',
  "password = getpass.getpass()\nself.password = password",
  "MY_API_KEY=os.getenv('OPENAI_API_KEY')",
  "const apiKey = process.env.OPENAI_API_KEY;",
  "interface Login {\n  password: string;\n  token?: string;\n}",
  "def login(user: str, password: str) -> Token:\n    return make_token(user, password)",
  "if token == expected:\n    return True",
  "connect(host, password=pw)",
  'const PASSWORD_PROMPT = "Enter your password:";',
  // logs and tool chatter
  "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.",
  "Cloning into 'repo'...\nremote: Enumerating objects: 42, done.",
  "12:30:45.123 INFO started in 412ms",
  "  - name: web\n    image: nginx:1.25\n    ports:\n      - containerPort: 8080",
  "key: app\noperator: In\nvalues: [web]",
  "ref: refs/heads/main",
  "Set-Cookie: theme=dark; Path=/",
  "pin_memory: true\nnum_workers: 4",
  "timeout=30 retries=3 keepalive=true",
  "Hello <@222589316709220353>",
];

describe("harmless text stays byte-identical", () => {
  it("holds a corpus of real shapes", () => {
    expect(HARMLESS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(HARMLESS.map((text) => [text]))("%s", (text) => {
    expect(redact(text)).toBe(text);
  });

  it("as one block", () => {
    const block = HARMLESS.join("\n");
    expect(redact(block)).toBe(block);
  });

  it("inside a JSON tool result and inside pretty-printed JSON", () => {
    const result = JSON.stringify({ output: HARMLESS.join("\n"), exit_code: 0, cwd: "/home/me" });
    expect(redact(result)).toBe(result);
    for (const text of HARMLESS) {
      const compact = JSON.stringify({ content: text, lines: 1 });
      const pretty = JSON.stringify({ content: text }, null, 2);
      expect(redact(compact), text).toBe(compact);
      expect(redact(pretty), text).toBe(pretty);
    }
  });

  it("keeps the rest of a result byte-identical when one line in it holds a secret", () => {
    const block = [...HARMLESS.slice(0, 20), "DB_PASSWORD=hunter2", ...HARMLESS.slice(20)].join("\n");
    expect(redact(block)).toBe(block.replace("hunter2", "[REDACTED:DB_PASSWORD]"));
  });

  it("returns long inputs built to make a pattern backtrack unchanged", () => {
    // Each would hang a pattern with nested unbounded repetition; the test timeout is the guard.
    for (const text of [
      `${"a".repeat(200_000)}=value`,
      `${"a.".repeat(100_000)}=value`,
      `${"segment.".repeat(20_000)}token end`,
      `eyJ${"a".repeat(100_000)}.`,
      `https://${"a:".repeat(50_000)}`,
      `${"1".repeat(50_000)}:${"A".repeat(50_000)}`,
      "Authorization: ".repeat(20_000),
      "curl ".repeat(40_000),
      `x${"?a=b&".repeat(40_000)}`,
      `URL="${"a=b".repeat(30_000)}"`,
      'note="abc '.repeat(10_000),
      'f"Bearer '.repeat(30_000),
      `key=${"sk-1 ".repeat(50_000)}`,
      `${"eyJ0ZXN0Ijo".repeat(20_000)}`,
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});
