import { describe, expect, it } from "vitest";
import { secretKeyKind } from "../../src/tools/redact-keys.js";
import { expectUnchanged, redact } from "./redact-support.js";

describe("key names", () => {
  it.each([
    ["MY_SERVICE_TOKEN", "token"],
    ["SECRET_TOKEN", "password"],
    ["DB_PASS", "password"],
    ["MYSQL_PWD", "password"],
    ["DB_PW", "password"],
    ["passwd", "password"],
    ["spring.datasource.password", "password"],
    ["clientSecret", "password"],
    ["STRIPE_SECRET", "password"],
    ["OPENAI_API_KEY", "token"],
    ["app.api.key", "token"],
    ["apiKey", "token"],
    ["x-api-key", "token"],
    ["private_key", "token"],
    ["aws_secret_access_key", "password"],
    ["credentials", "token"],
    ["APIToken", "token"],
    ["FAL_KEY", "token"],
    ["client%5Fsecret", "password"],
    ["signing_key", "token"],
  ])("%s is a secret (%s)", (key, kind) => {
    expect(secretKeyKind(key)).toBe(kind);
  });

  it.each([
    "password_length",
    "token_count",
    "max_tokens",
    "max_new_tokens",
    "TOKEN_LIMIT",
    "TOKEN_TTL",
    "password_file",
    "token_url",
    "secret_name",
    "token_type",
    "key",
    "sort_key",
    "primary_key",
    "public_key",
    "tokenKey",
    "KEYBOARD",
    "PASSAGE",
    "PWD",
    "OLDPWD",
    "Secretary",
    "tokenizer",
    "x-ratelimit-remaining-tokens",
    "PLACEHOLDER_API_KEY",
    "num_key_value_heads",
  ])("%s is not", (key) => {
    expect(secretKeyKind(key)).toBeUndefined();
  });
});

describe(".env files, shell lines and environment dumps", () => {
  it.each([
    ["MY_SERVICE_TOKEN=A9f3kZq7Lm2Xw8Rt4Yv6", "MY_SERVICE_TOKEN=[REDACTED:MY_SERVICE_TOKEN]"],
    ["export SECRET_TOKEN=mypassword", "export SECRET_TOKEN=[REDACTED:SECRET_TOKEN]"],
    ["DB_PASS=letmein", "DB_PASS=[REDACTED:DB_PASS]"],
    ["STRIPE_SECRET=whatever1", "STRIPE_SECRET=[REDACTED:STRIPE_SECRET]"],
    ["CUSTOM_API_KEY=opaquecustomkey123456", "CUSTOM_API_KEY=[REDACTED:CUSTOM_API_KEY]"],
    ["passwd=x1y2z3", "passwd=[REDACTED:passwd]"],
    ["credentials=abc123xyz", "credentials=[REDACTED:credentials]"],
    ["private_key=abcdef", "private_key=[REDACTED:private_key]"],
    ['DB_PASSWORD="s3cret with spaces"', 'DB_PASSWORD="[REDACTED:DB_PASSWORD]"'],
    ["API_TOKEN='abc123'", "API_TOKEN='[REDACTED:API_TOKEN]'"],
    [
      "MISTRAL_API_KEY=abc123secret # used for tests",
      "MISTRAL_API_KEY=[REDACTED:MISTRAL_API_KEY] # used for tests",
    ],
    ["     1\tNOUS_API_KEY=xyz789opaqueKey", "     1\tNOUS_API_KEY=[REDACTED:NOUS_API_KEY]"],
    ["docker run -e DB_PASSWORD=secretpw app", "docker run -e DB_PASSWORD=[REDACTED:DB_PASSWORD] app"],
    ["--password=hunter2", "--password=[REDACTED:password]"],
    ["PASSWORD=123456", "PASSWORD=[REDACTED:PASSWORD]"],
  ])("%s", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("masks only the secret lines of an environment dump", () => {
    const dump = [
      "HOME=/home/user",
      "PATH=/usr/local/bin:/usr/bin",
      "OPENROUTER_API_KEY=opaque-openrouter-value-42",
      "TELEGRAM_BOT_TOKEN=bot-opaque-9876",
      "TOKENIZERS_PARALLELISM=false",
      "SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
      "SHELL=/bin/bash",
      "USER=ada",
    ].join("\n");
    expect(redact(dump)).toBe(
      dump
        .replace("opaque-openrouter-value-42", "[REDACTED:OPENROUTER_API_KEY]")
        .replace("bot-opaque-9876", "[REDACTED:TELEGRAM_BOT_TOKEN]"),
    );
  });
});

describe("config files: YAML, JSON, properties, INI", () => {
  it("hides YAML values under secret keys, at any depth and in lists", () => {
    const yaml = [
      "db:",
      "  host: db.internal",
      "  password: s3cr3t",
      "  client-secret: 'quoted value'",
      "  token_count: 42",
      "services:",
      "  - api_key: opaque123",
      "  - name: web",
      "password: ",
    ].join("\n");
    expect(redact(yaml)).toBe(
      yaml
        .replace("s3cr3t", "[REDACTED:password]")
        .replace("quoted value", "[REDACTED:client-secret]")
        .replace("opaque123", "[REDACTED:api_key]"),
    );
  });

  it("hides JSON string members and numeric passwords, keeps counts", () => {
    expect(redact('{"password": "hunter2", "user": "bob"}')).toBe(
      '{"password": "[REDACTED:password]", "user": "bob"}',
    );
    expect(redact('{"apiKey": "opaque-1"}')).toBe('{"apiKey": "[REDACTED:apiKey]"}');
    expect(redact('{"password": 12345678, "tokens": 1024, "max_tokens": 4096}')).toBe(
      '{"password": "[REDACTED:password]", "tokens": 1024, "max_tokens": 4096}',
    );
    expect(redact(JSON.stringify({ pin_password: 1234, tokens: 1024 }))).toBe(
      JSON.stringify({ pin_password: "[REDACTED:pin_password]", tokens: 1024 }),
    );
    expect(redact('{ "secret_value": "xyz-1",\n  "token": "" }')).toBe(
      '{ "secret_value": "[REDACTED:secret_value]",\n  "token": "" }',
    );
  });

  it("hides members in a JSON tool result, also in JSON printed inside one of its strings", () => {
    const inner = JSON.stringify({ password: "hunter2", retries: 3 }, null, 2);
    const result = JSON.stringify({ output: `cat config.json\n${inner}\nTOKEN=abc123`, exit_code: 0 });
    const out = JSON.parse(redact(result)) as { output: string; exit_code: number };
    expect(out).toEqual({
      output: `cat config.json\n${inner.replace("hunter2", "[REDACTED:password]")}\nTOKEN=[REDACTED:TOKEN]`,
      exit_code: 0,
    });
    expect(redact(JSON.stringify({ headers: { Authorization: "Bearer opaque1234" }, password: "pw1" }))).toBe(
      JSON.stringify({
        headers: { Authorization: "Bearer [REDACTED:bearer_token]" },
        password: "[REDACTED:password]",
      }),
    );
  });

  it("hides values in pretty-printed JSON, whose strings hold escaped newlines and quotes", () => {
    const pretty = JSON.stringify(
      { output: 'password: "hunter2"\nMY_TOKEN=abc123xyz\n{"token": "t-9"}' },
      null,
      2,
    );
    const out = redact(pretty);
    expect(JSON.parse(out)).toEqual({
      output: 'password: "[REDACTED:password]"\nMY_TOKEN=[REDACTED:MY_TOKEN]\n{"token": "[REDACTED:token]"}',
    });
  });

  it("hides properties and INI values", () => {
    const props = [
      "server.port=8080",
      "spring.datasource.username=admin",
      "spring.datasource.password=Sup3rS3cret!",
    ];
    expect(redact(props.join("\n"))).toBe(
      [...props.slice(0, 2), "spring.datasource.password=[REDACTED:spring.datasource.password]"].join("\n"),
    );
    expect(redact("app.api.key=abcdef123456")).toBe("app.api.key=[REDACTED:app.api.key]");
    expect(redact("db.password: hunter2verylong")).toBe("db.password: [REDACTED:db.password]");
    const aws = [
      "[default]",
      "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ];
    expect(redact(aws.join("\n"))).toBe(
      [
        "[default]",
        "aws_access_key_id = [REDACTED:aws_access_key]",
        "aws_secret_access_key = [REDACTED:aws_secret_access_key]",
      ].join("\n"),
    );
  });
});

describe("URL parameters, form bodies and flags", () => {
  it.each([
    [
      "https://x.test/cb?access_token=abc123&view=public",
      "https://x.test/cb?access_token=[REDACTED:access_token]&view=public",
    ],
    ["/resume?a=1&token=REL_SECRET&view=public", "/resume?a=1&token=[REDACTED:token]&view=public"],
    ["GET /v1?api_key=zzz123", "GET /v1?api_key=[REDACTED:api_key]"],
    ["/cb?client_secret=abcdef#frag", "/cb?client_secret=[REDACTED:client_secret]#frag"],
    [
      "https://x.test/#access_token=FRAG&view=public",
      "https://x.test/#access_token=[REDACTED:access_token]&view=public",
    ],
    ["/resume?token=SEMI;view=public", "/resume?token=[REDACTED:token];view=public"],
    ["/cb?client%5Fsecret=ENC&view=public", "/cb?client%5Fsecret=[REDACTED:client%5Fsecret]&view=public"],
    [
      "https://acct.blob.core.windows.net/c?sv=2022&sig=Zm9vYmFy",
      "https://acct.blob.core.windows.net/c?sv=2022&sig=[REDACTED:sig]",
    ],
    ["https://s3/x?X-Amz-Signature=abc123def", "https://s3/x?X-Amz-Signature=[REDACTED:X-Amz-Signature]"],
    ["login?user=bob&password=hunter2", "login?user=bob&password=[REDACTED:password]"],
    [
      "export CALLBACK=https://x.test/cb?access_token=abc123",
      "export CALLBACK=https://x.test/cb?access_token=[REDACTED:access_token]",
    ],
    ['URL="https://x.test/cb?token=abcdef&x=1"', 'URL="https://x.test/cb?token=[REDACTED:token]&x=1"'],
  ])("%s", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("hides every secret field of a form body and keeps the others", () => {
    expect(redact("password=mysecret&username=bob&client_secret=opaqueValue")).toBe(
      "password=[REDACTED:password]&username=bob&client_secret=[REDACTED:client_secret]",
    );
    expect(redact("curl -d 'grant_type=password&password=hunter2&client_secret=x9' https://auth")).toBe(
      "curl -d 'grant_type=password&password=[REDACTED:password]&client_secret=[REDACTED:client_secret]' https://auth",
    );
  });

  it("hides the argument of a secret flag, not of a flag that names a file or a limit", () => {
    expect(redact("mysql --password hunter2 -h db")).toBe("mysql --password [REDACTED:password] -h db");
    expect(redact('tool --api-key "opaque-key-123" run')).toBe('tool --api-key "[REDACTED:api-key]" run');
    expectUnchanged([
      "--password-file ./x",
      "--token-limit 100",
      "docker login --password-stdin",
      "gpg --delete-secret-keys ABCD1234",
      "use the --token flag to pass a token",
      "gh auth login --with-token < token.txt",
    ]);
  });
});

describe("values that are not secrets", () => {
  it("keeps numbers under count-like or token names, and quantities", () => {
    expectUnchanged([
      "password_length=12",
      "token_count: 42",
      "max_tokens=4096",
      "TOKEN_LIMIT=100",
      "TOKEN=12345",
      '"prompt_tokens": 512',
      "input_tokens: 3_700",
      "api_key_rotation_days=90",
      "token_timeout: 30s",
      "password: 12",
    ]);
  });

  it("keeps references, placeholders, paths and empty values", () => {
    expectUnchanged([
      "password: ",
      "DB_PASSWORD=",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell or template reference is the input under test.
      "token: ${GITHUB_TOKEN}",
      'password: "{{ vault_db_password }}"',
      "API_KEY=<your-api-key>",
      "OPENAI_API_KEY=sk-...",
      "SECRET_KEY=your_secret_key_here",
      "password: ********",
      "GOOGLE_APPLICATION_CREDENTIALS=/home/me/creds.json",
      "token: null",
      "password: |",
    ]);
  });

  it("keeps code: calls, attribute access, variables, type annotations and short test literals", () => {
    expectUnchanged([
      'const password = input("pw");',
      "token = get_token(user)",
      "password = getpass.getpass()",
      "self.password = password",
      "MY_API_KEY=os.getenv('OPENAI_API_KEY')",
      "const apiKey = process.env.OPENAI_API_KEY;",
      "const thinking = u.output_tokens_details?.reasoning_tokens;",
      "interface Login {\n  password: string;\n  token?: string;\n}",
      "def login(user: str, password: str) -> Token:",
      '  apiKey: "k",\n  baseUrl: url,',
      "connect(host, password=pw)",
      "I have password=foo and other things",
      "if token == expected: return",
      'const PASSWORD_PROMPT = "Enter your password:";',
      "credential_pool: Record<string, PoolEntry[]>;",
      'kind = secret ? "token" : "key";',
    ]);
  });

  it("still hides literals hard-coded in code", () => {
    expect(redact('password = "hunter2!"')).toBe('password = "[REDACTED:password]"');
    expect(redact("SECRET_KEY = 'django-insecure-abc123'")).toBe("SECRET_KEY = '[REDACTED:SECRET_KEY]'");
    expect(redact('db.connect(password="Sup3rS3cret")')).toBe('db.connect(password="[REDACTED:password]")');
  });
});

describe("redacting twice", () => {
  it("changes nothing the second time", () => {
    for (const text of [
      "postgres://user:pw@host MY_SERVICE_TOKEN=A9f3kZq7 Authorization: Basic dXNlcjpwYXNz",
      "https://ABCDEFGHIJKLMNOPQRSTUVWX@github.com/x?token=abc&sig=def",
      'password: hunter2\n{"password": "x1"}\n--password y2 aws_secret_access_key = k3',
      "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 curl -u a:b1 x",
    ]) {
      const once = redact(text);
      expect(once).not.toBe(text);
      expect(redact(once)).toBe(once);
    }
  });
});
