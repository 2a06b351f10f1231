import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { closedPort } from "../support/closed-port.js";
import { messagesOf, openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { skipBecause } from "../support/skip.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const envFor = (home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
  cleanEnv({ HERMES_HOME: home, ...extra });

const lastUser = (i: number): unknown =>
  messagesOf(fake.requests[i]!)
    .filter((m) => m.role === "user")
    .at(-1)?.content;

describe("a local server that is not running", () => {
  it("hermes -z fails within seconds, naming the address and what to start", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const box = sandbox(`model:\n  provider: custom\n  base_url: ${url}\n  default: llama3.1\n`);
    const started = Date.now();
    const r = await runHermes(["-z", "hello"], { env: envFor(box.home), cwd: box.work });
    const elapsed = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `Nothing is listening at ${url} (connection refused): start the server (ollama serve / llama-server / vllm serve / LM Studio) or set model.base_url.`,
    );
    // One quick retry, reported as such, then the end: no minute of backoff.
    expect(r.stderr).toContain("(retry 1 of 1)");
    expect(r.stderr).not.toContain("retry 2");
    expect(elapsed).toBeLessThan(15_000);
  });
});

describe("a custom endpoint without a model", () => {
  const noModel = () => `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n`;

  it("uses the only model the server lists", async () => {
    fake.setModelList({ object: "list", data: [{ id: "qwen3:8b", object: "model" }] });
    fake.enqueue({ text: "hi there" });
    const box = sandbox(noModel());
    const r = await runHermes(["-z", "hello"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("hi there\n");
    // -z keeps stderr for failures.
    expect(r.stderr).toBe("");
    expect(fake.requests[0]!.body.model).toBe("qwen3:8b");
  });

  it("the chat says which model it picked", async () => {
    fake.setModelList({ data: [{ id: "qwen3:8b" }] });
    fake.enqueue({ text: "hi there" });
    const box = sandbox(noModel());
    const r = await runHermes([], { env: envFor(box.home), cwd: box.work, input: "hello\n" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`hermes: using qwen3:8b, the only model ${fake.openaiBaseUrl} serves`);
  });

  it("several models: lists them and says how to pick one, instead of the provider screen", async () => {
    const box = sandbox(noModel());
    const r = await runHermes(["-z", "hello"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${fake.openaiBaseUrl} serves 2 models; pass -m MODEL`);
    expect(r.stderr).toContain("  fake-model\n  fake-model-large\n");
    expect(r.stderr).not.toContain("OPENROUTER_API_KEY");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("OPENAI_BASE_URL and model.base_url", () => {
  it("the environment wins for the run, with a warning naming both", async () => {
    const configured = `http://127.0.0.1:${await closedPort()}/v1`;
    const box = sandbox(`model:\n  base_url: ${configured}\n  default: test-model\n`);
    fake.enqueue({ text: "from the environment's server" });
    const r = await runHermes(["-z", "hello"], {
      env: envFor(box.home, { OPENAI_BASE_URL: fake.openaiBaseUrl }),
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("from the environment's server\n");
    expect(r.stderr).toBe(
      `warning: OPENAI_BASE_URL (${fake.openaiBaseUrl}) overrides model.base_url (${configured}) for this run; unset OPENAI_BASE_URL to use model.base_url.\n`,
    );
  });

  it("no warning when they agree", async () => {
    const box = sandbox(openaiConfig(fake));
    fake.enqueue({ text: "ok" });
    const r = await runHermes(["-z", "hello"], {
      env: envFor(box.home, { OPENAI_BASE_URL: `${fake.openaiBaseUrl}/` }),
      cwd: box.work,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });
});

describe("a prompt as the first argument", () => {
  it('hermes "a prompt with spaces" starts the chat with it as the first message', async () => {
    const box = sandbox(openaiConfig(fake));
    fake.enqueue({ text: "Paris." });
    const r = await runHermes(["what is the capital of France?"], {
      env: envFor(box.home),
      cwd: box.work,
      input: "",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Paris.");
    expect(lastUser(0)).toBe("what is the capital of France?");
  });

  it("a mistyped command gets 'did you mean' and how to quote a prompt (exit 2)", async () => {
    const box = sandbox(openaiConfig(fake));
    const r = await runHermes(["sesions", "list"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: unknown command 'sesions'\n(Did you mean sessions?)");
    expect(r.stderr).toContain('hermes "your prompt"');
    expect(r.stderr).toContain('hermes -z "your prompt"');
    expect(fake.requests).toHaveLength(0);
  });
});

describe("/title in the chat", () => {
  it("reports success when the title was set", async () => {
    const box = sandbox(openaiConfig(fake));
    const r = await runHermes([], { env: envFor(box.home), cwd: box.work, input: "/title Kyoto trip\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Session titled "Kyoto trip".');
    expect(r.stdout).not.toContain("Cannot set the title");
  });
});

describe("-z with a command nobody can approve", () => {
  it("says on stderr which command was not run and how to allow it", async () => {
    const box = sandbox(openaiConfig(fake, "approvals:\n  mode: manual\n"));
    fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "git push --force origin main" } }] },
      { toolCalls: [{ name: "terminal", arguments: { command: "echo harmless" } }] },
      { text: "I could not push." },
    );
    const r = await runHermes(["-z", "push it"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I could not push.\n");
    // One line for the denied command, none for the harmless one.
    expect(r.stderr).toBe(
      "hermes: did not run 'git push --force origin main': it needs approval and nobody can answer in this run; to allow such commands: --yolo, approvals.mode: off, or their rules in command_allowlist (config.yaml)\n",
    );
  });
});

describe("a refused API key", () => {
  it("the hint names model.api_key and the .env file", async () => {
    const box = sandbox(openaiConfig(fake, "agent:\n  api_max_retries: 0\n"));
    fake.enqueue({ fault: { kind: "http", status: 401, body: { error: { message: "Invalid API key" } } } });
    const r = await runHermes(["-z", "hello"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Check the API key for custom: model.api_key in config.yaml");
    expect(r.stderr).toContain(
      `OPENAI_API_KEY (with OPENAI_BASE_URL) in the environment or in ${join(box.home, ".env")}`,
    );
  });
});

describe("a HERMES_HOME that cannot be used", () => {
  const fileHome = () => {
    const { work } = sandbox();
    const home = join(work, "not-a-folder");
    writeFileSync(home, "");
    return { home, work };
  };

  it("read-only commands still work", async () => {
    const { home, work } = fileHome();
    const env = envFor(home);
    const path = await runHermes(["config", "path"], { env, cwd: work });
    expect(path).toMatchObject({ code: 0, stdout: `${join(home, "config.yaml")}\n`, stderr: "" });
    const show = await runHermes(["config", "show"], { env, cwd: work });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("max_turns:");
    for (const args of [["--help"], ["--version"], ["config", "check"]]) {
      expect((await runHermes(args, { env, cwd: work })).code).toBe(0);
    }
  });

  it("a file in its place: one line naming the path and the fix", async () => {
    const { home, work } = fileHome();
    for (const args of [
      ["-z", "hello"],
      ["sessions", "list"],
      ["config", "set", "agent.max_turns", "3"],
    ]) {
      const r = await runHermes(args, { env: envFor(home), cwd: work });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `hermes: HERMES_HOME (${home}) is not usable: ${home} is a file, not a folder. Set HERMES_HOME to a folder, or move that file away.\n`,
      );
    }
  });

  /** A folder this process cannot create: under a read-only parent, or where even root may not. */
  const unwritable = (): { home: string; work: string; cleanup: () => void } | undefined => {
    const { work } = sandbox();
    if (process.getuid?.() !== 0) {
      const parent = join(work, "locked");
      mkdirSync(parent);
      chmodSync(parent, 0o555);
      return { home: join(parent, "home"), work, cleanup: () => chmodSync(parent, 0o755) };
    }
    // Root ignores folder modes; sysfs refuses new folders even to root.
    if (existsSync("/sys/kernel")) return { home: "/sys/hermes-first-run-test", work, cleanup: () => {} };
    return undefined;
  };

  it.skipIf(
    skipBecause(
      "unwritable HERMES_HOME",
      process.getuid?.() === 0 && !existsSync("/sys/kernel") && "running as root without /sys",
    ),
  )("a home that cannot be created: permission denied, with the path", async () => {
    const place = unwritable()!;
    try {
      const r = await runHermes(["-z", "hello"], { env: envFor(place.home), cwd: place.work });
      expect(r.code).toBe(1);
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^hermes: HERMES_HOME \\(${place.home}\\) is not usable: cannot create ${place.home}.* \\(permission denied\\)\\. Make .* writable, or set HERMES_HOME to a folder you own\\.$`,
        ),
      );
      expect(r.stderr).not.toMatch(/EACCES|EPERM|EEXIST/);
      const path = await runHermes(["config", "path"], { env: envFor(place.home), cwd: place.work });
      expect(path.code).toBe(0);
    } finally {
      place.cleanup();
    }
  });
});
