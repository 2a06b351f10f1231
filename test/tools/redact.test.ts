import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PreparedCall } from "../../src/agent/tool-calls.js";
import { runToolBatch } from "../../src/agent/tool-runner.js";
import { isCredentialName } from "../../src/tools/environments/shell-state.js";
import { SecretRedactor } from "../../src/tools/redact.js";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness | undefined;
const saved: Record<string, string | undefined> = {};
const setEnv = (name: string, value: string): void => {
  if (!(name in saved)) saved[name] = process.env[name];
  process.env[name] = value;
};

afterEach(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
    delete saved[k];
  }
  await h?.dispose();
  h = undefined;
});

/** Runs one tool call the way the agent does (tool runner included) and returns its result. */
async function viaAgent(name: string, args: Record<string, unknown>): Promise<string> {
  const call: PreparedCall = {
    call: { id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } },
    toolName: name,
    args,
    argsRepaired: false,
  };
  const [result] = await runToolBatch([call], { registry: h!.registry, ctx: h!.ctx, emit: () => {} });
  return result!.content;
}

describe("secret redaction in tool results", () => {
  beforeEach(async () => {
    setEnv("OPENAI_API_KEY", "plain-openai-value-12345");
    h = await createHarness({
      config: (c) => {
        c.terminal.env_passthrough = ["OPENAI_API_KEY"];
      },
    });
  });

  it("redacts a passed-through key that a command prints", async () => {
    const out = await viaAgent("terminal", { command: 'echo "key=$OPENAI_API_KEY"' });
    expect(out).toContain("key=[REDACTED:OPENAI_API_KEY]");
    expect(out).not.toContain("plain-openai-value-12345");
  });

  it("redacts values from HERMES_HOME/.env and keys pooled in auth.json, re-reading them when they change", async () => {
    await writeFile(join(h!.home, ".env"), "CUSTOM_SERVICE=dotenv-secret-98765\n");
    await writeFile(
      join(h!.home, "auth.json"),
      JSON.stringify({
        version: 1,
        credential_pool: { openrouter: [{ id: "a", label: "work", api_key: "pooled-key-abcdef123" }] },
      }),
    );
    await writeFile(join(h!.root, "notes.txt"), "a dotenv-secret-98765 b pooled-key-abcdef123 c\n");
    const out = await viaAgent("read_file", { path: "notes.txt" });
    expect(out).toContain("a [REDACTED:CUSTOM_SERVICE] b [REDACTED:auth.json:openrouter] c");
    await writeFile(join(h!.home, ".env"), "CUSTOM_SERVICE=rotated-secret-55555\n");
    await writeFile(join(h!.root, "notes.txt"), "now rotated-secret-55555\n");
    expect(await viaAgent("read_file", { path: "notes.txt" })).toContain("now [REDACTED:CUSTOM_SERVICE]");
  });

  it("redacts secrets no value list knows, by shape and by key name, in what a command prints", async () => {
    const out = await viaAgent("terminal", {
      command: "printf 'DB_PASSWORD=unlisted-pw-1\\nurl=postgres://app:pg-pass-2@db/app\\nHOME=/root\\n'",
    });
    expect(JSON.parse(out).output).toBe(
      "DB_PASSWORD=[REDACTED:DB_PASSWORD]\nurl=postgres://app:[REDACTED:password]@db/app\nHOME=/root\n",
    );
  });

  it("leaves results alone when security.redact_secrets is false", async () => {
    await h!.dispose();
    h = await createHarness({
      config: (c) => {
        c.terminal.env_passthrough = ["OPENAI_API_KEY"];
        c.security.redact_secrets = false;
      },
    });
    expect(await viaAgent("terminal", { command: "echo $OPENAI_API_KEY" })).toContain(
      "plain-openai-value-12345",
    );
  });
});

describe("SecretRedactor", () => {
  const redactor = (env: NodeJS.ProcessEnv = {}) => new SecretRedactor({ home: "/nonexistent-home", env });

  it("recognises common token shapes", () => {
    const r = redactor();
    const cases: [string, string][] = [
      ["sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "anthropic_key"],
      ["sk-or-v1-0123456789abcdef0123456789abcdef", "openrouter_key"],
      ["sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234", "openai_key"],
      ["ghp_0123456789abcdefghijABCDEFGHIJ012345", "github_token"],
      ["github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123", "github_token"],
      ["xoxb-1234567890-abcdefghij", "slack_token"],
      ["AKIAIOSFODNN7EXAMPLE", "aws_access_key"],
      ["AIzaSyA-0123456789abcdefghijklmnopqrstu", "google_api_key"],
      ["hf_abcdefghijklmnopqrstuvwxyz0123456789", "hf_token"],
    ];
    for (const [secret, name] of cases)
      expect(r.redact(`x ${secret} y`), secret).toBe(`x [REDACTED:${name}] y`);
    expect(r.redact("Authorization: Bearer abc.def-ghi_jkl012345")).toBe(
      "Authorization: Bearer [REDACTED:bearer_token]",
    );
    const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----";
    expect(r.redact(`key:\n${pem}\nend`)).toBe("key:\n[REDACTED:private_key]\nend");
  });

  it("redacts known values also in their JSON-escaped form, and ignores short or ordinary values", () => {
    const r = redactor({
      DB_PASSWORD: 'quo"te\\slash99',
      SHORT_TOKEN: "abc",
      FLAG_SECRET: "true",
      PATH: "/usr/bin",
    });
    const json = JSON.stringify({ output: 'pw=quo"te\\slash99 abc true' });
    const out = r.redact(json);
    expect(JSON.parse(out)).toEqual({ output: "pw=[REDACTED:DB_PASSWORD] abc true" });
  });

  it("leaves ordinary text and code untouched", () => {
    const code = 'const password = input("pw");\nconst token = getToken(user);\nsk-short';
    expect(redactor().redact(code)).toBe(code);
  });
});

describe("credential-shaped variable names (hidden from commands)", () => {
  it("hides keys, tokens, secrets, passwords, credentials and auth by name part", () => {
    for (const n of [
      "OPENAI_API_KEY",
      "APIKEY",
      "GITHUB_TOKEN",
      "AWS_SESSION_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "CLIENT_SECRET",
      "DB_PASSWORD",
      "MYSQL_PWD_PASSWD",
      "SMTP_PASS",
      "GPG_PASSPHRASE",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "REGISTRY_CREDS",
      "NPM_CONFIG__AUTH",
      "DOCKER_AUTH_CONFIG",
      "OAUTH_CLIENT_ID",
      "ANTHROPIC_BASE_URL",
      "private_key",
    ]) {
      expect(isCredentialName(n), n).toBe(true);
    }
  });

  it("keeps harmless look-alikes visible", () => {
    for (const n of [
      "PATH",
      "HOME",
      "PWD",
      "SSH_AUTH_SOCK",
      "GIT_AUTHOR_NAME",
      "GIT_AUTHOR_EMAIL",
      "TOKENIZERS_PARALLELISM",
      "KEYTIMEOUT",
      "SSH_ASKPASS",
      "XAUTHORITY",
      "PASSENGER_ENV",
    ]) {
      expect(isCredentialName(n), n).toBe(false);
    }
  });

  it("applies to the terminal's environment, with terminal.env_passthrough as the way through", async () => {
    h = await createHarness({
      config: (c) => {
        c.terminal.env_passthrough = ["DEPLOY_TOKEN"];
      },
      env: {
        sourceEnv: {
          ...process.env,
          DEPLOY_TOKEN: "pass-me",
          SMTP_PASS: "hidden-1",
          GIT_AUTHOR_NAME: "Ada",
          SSH_AUTH_SOCK: "/tmp/agent.sock",
        },
      },
    });
    const r = await h!.call("terminal", {
      command: 'echo "[$DEPLOY_TOKEN][$SMTP_PASS][$GIT_AUTHOR_NAME][$SSH_AUTH_SOCK]"',
    });
    expect(r.output).toBe("[pass-me][][Ada][/tmp/agent.sock]\n");
  });
});
