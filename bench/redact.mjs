// Secret redaction speed: 1 MB of mixed log text (plain and as a JSON tool result), 1 MB of prose
// without secrets, and inputs built to make a pattern backtrack at two sizes (time should grow
// about linearly). Uses the built dist/ (run `npm run build` first).
import { SecretRedactor } from "../dist/tools/redact.js";
import { fmt, median } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);

const LINES = [
  "2024-05-01T12:00:01.123Z INFO  server listening on http://localhost:5432/api (pid 4123)",
  "GET /v1/models?limit=20&page=2 200 12ms user=alice@example.com",
  "commit 3f786850e387550fdab836ed7e6dc881de23001b Author: Ada <ada@example.org>",
  '{"level":"info","status":200,"usage":{"prompt_tokens":512,"completion_tokens":64},"max_tokens":4096}',
  "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.",
  "    at Object.<anonymous> (/home/me/project/src/index.ts:42:13)",
  "config.token_count: 42   password_length=12   TOKEN_LIMIT=100",
  "id=550e8400-e29b-41d4-a716-446655440000 path=/var/lib/app/data.db size=1048576",
  "export DATABASE_URL=postgres://app:S3cr3tPw@db.internal:5432/app",
  "Authorization: Bearer abcdefghijklmnop1234567890",
  "curl -H 'x-api-key: opaque-provider-key-1234567890' https://api.example.com/v1?access_token=zz1234",
  "MY_SERVICE_TOKEN=A9f3kZq7Lm2Xw8Rt4Yv6  # rotated",
  "The quick brown fox jumps over the lazy dog; set your password in the UI, then continue.",
  "  - name: web\n    image: nginx:1.25\n    ports:\n      - containerPort: 8080",
];

let mixed = "";
for (let i = 0; mixed.length < 1_000_000; i++) mixed += `${LINES[i % LINES.length]}\n`;
const toolResult = JSON.stringify({ output: mixed, exit_code: 0, cwd: "/home/me/project" });
const prose = "lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(18_000);

const redactor = new SecretRedactor({ home: "/nonexistent-home", env: {} });
const time = (input) => {
  for (let i = 0; i < 3; i++) redactor.redact(input);
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    redactor.redact(input);
    runs.push(performance.now() - started);
  }
  return median(runs);
};

console.log("secret redaction");
for (const [label, input] of [
  ["mixed log text", mixed],
  ["same, as a JSON tool result", toolResult],
  ["prose without secrets", prose],
]) {
  console.log(`  ${label.padEnd(30)} ${(input.length / 1e6).toFixed(2)} MB  ${fmt(time(input))} ms`);
}

const ADVERSARIAL = {
  "key characters then =": (n) => `${"a".repeat(n)}=x`,
  "dotted run then =": (n) => `${"a.".repeat(n / 2)}=x`,
  "unclosed quotes": (n) => 'note="abc '.repeat(n / 10),
  "nested quoted pairs": (n) => `URL="${"a=b".repeat(n / 3)}"`,
  "curl without -u": (n) => "curl ".repeat(n / 5),
  "eyJ runs": (n) => "eyJaaaaaaaaaaaa.".repeat(n / 16),
  "digits and colons": (n) => "123456789:".repeat(n / 10),
};
console.log("  adversarial inputs, 100k → 400k characters:");
for (const [label, make] of Object.entries(ADVERSARIAL)) {
  const small = time(make(100_000));
  const large = time(make(400_000));
  console.log(`    ${label.padEnd(24)} ${fmt(small)} → ${fmt(large)} ms`);
}
