import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";

/** Runs the built binary in a fresh home (optionally with a config.yaml). */
async function hermes(args: string[], configYaml?: string) {
  const box = sandbox(configYaml);
  const r = await runHermes(args, { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
  return { ...r, home: box.home };
}

describe("exit codes follow the table in docs/cli.md", () => {
  it.each([
    ["an unknown option", ["--frobnicate"], "error: unknown option '--frobnicate'"],
    ["an unknown command", ["chta"], "(Did you mean chat?)"],
    ["an unknown subcommand", ["config", "sett", "a", "b"], "(Did you mean set?)"],
    ["a missing argument", ["sessions", "export"], "error: missing required argument 'id|title'"],
    ["an option without its value", ["sessions", "list", "-n"], "argument missing"],
    ["a value outside the choices", ["--provider", "bogus", "-z", "x"], "Allowed choices are"],
    ["a command group without its command", ["config"], "Usage: hermes config"],
    ["words after -z PROMPT", ["-z", "hello", "world"], "error: unexpected argument 'world' after -z PROMPT"],
    ["an empty prompt", ["-z", " "], "hermes: the prompt is empty"],
    ["a bad number", ["sessions", "prune", "--older-than", "soon"], "takes a number of days"],
  ])("2 for a usage error: %s", async (_what, args, message) => {
    const r = await hermes(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
  });

  it.each([[["--help"]], [["help"]], [["help", "config"]], [["--version"]], [["config", "path"]]])(
    "0 for %j",
    async (args) => {
      const r = await hermes(args);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toBe("");
    },
  );

  it("1 when the command ran and failed (no provider configured)", async () => {
    const r = await hermes(["-z", "hello"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No model provider is configured.");
  });
});

describe("config.yaml mistakes name the right line", () => {
  const broken = [
    "# my settings",
    "model:",
    "  provider: custom",
    '  default: "llama3.1',
    "agent:",
    "  max_turns: 5",
    "",
  ].join("\n");

  it("config check and a run both point at line 4 (the open quote), exit 1", async () => {
    for (const args of [
      ["config", "check"],
      ["-z", "hello"],
    ]) {
      const r = await hermes(args, broken);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `hermes: ${join(r.home, "config.yaml")}:4: invalid YAML: Missing closing "quote\n`,
      );
    }
  });

  it("config set names no line the file does not have, and leaves the file as it was", async () => {
    const box = sandbox("# two lines\nmodel: {}\n");
    const env = cleanEnv({ HERMES_HOME: box.home });
    const r = await runHermes(["config", "set", "agent.max_turns", "many"], { env, cwd: box.work });
    expect(r.code).toBe(1);
    const file = join(box.home, "config.yaml");
    expect(r.stderr).toBe(
      `hermes: ${file}: 'agent.max_turns' must be a number, not a string (got "many"); nothing was changed\n`,
    );
    expect(readFileSync(file, "utf8")).toBe("# two lines\nmodel: {}\n");
    writeFileSync(file, "agent:\n  max_turns: 30\n");
    const again = await runHermes(["config", "set", "agent.max_turns", "[1]"], { env, cwd: box.work });
    expect(again.stderr).toContain(`${file}:2: 'agent.max_turns' must be a number, not a list`);
  });
});
