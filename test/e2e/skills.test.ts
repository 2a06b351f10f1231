import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, ROOT, runHermes, sandbox } from "../support/cli.js";
import { messagesOf, openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const systemOf = (r: RecordedRequest): string => {
  const sys = messagesOf(r).find((m) => m.role === "system");
  return typeof sys?.content === "string" ? sys.content : "";
};
const lastUserOf = (r: RecordedRequest): string => {
  const users = messagesOf(r).filter((m) => m.role === "user");
  const c = users.at(-1)?.content;
  return typeof c === "string" ? c : JSON.stringify(c);
};

const BODY = "1. Grind 18 g of beans medium-fine.\n2. Pour 300 g of water at 94 C over two minutes.\n";
const COFFEE = `---\nname: brew-coffee\ndescription: Brew pour-over coffee the way the user likes it.\nversion: 1.0.0\n---\n\n# Brewing\n\n${BODY}`;

describe("skills through the CLI", () => {
  it("a skill written in session 1 is in session 2's index (not its body), loads with skill_view, and runs as /<name>", async () => {
    const box = sandbox(openaiConfig(fake));
    const env = cleanEnv({ HERMES_HOME: box.home });
    fake.enqueue(
      {
        toolCalls: [
          {
            name: "skill_manage",
            arguments: { action: "create", name: "brew-coffee", category: "kitchen", content: COFFEE },
          },
        ],
      },
      { toolCalls: [{ name: "skills_list", arguments: {} }] },
      { text: "Saved." },
    );
    const r1 = await runHermes(["-z", "remember how I brew coffee"], { env, cwd: box.work });
    expect(r1.stderr).toBe("");
    expect(r1.code).toBe(0);
    expect(readFileSync(join(box.home, "skills/kitchen/brew-coffee/SKILL.md"), "utf8")).toBe(COFFEE);

    // Session 1: every request after the write starts with the bytes of the first one.
    const s1 = fake.requests;
    expect(s1).toHaveLength(3);
    const first = messagesOf(s1[0]!);
    for (const later of s1.slice(1)) {
      expect(JSON.stringify(messagesOf(later).slice(0, first.length))).toBe(JSON.stringify(first));
      expect(JSON.stringify(later.body.tools)).toBe(JSON.stringify(s1[0]!.body.tools));
    }
    expect(systemOf(s1[0]!)).toContain(" systematic-debugging (");
    expect(systemOf(s1[0]!)).not.toContain("brew-coffee");
    // The tools see the new skill at once.
    expect(toolMessagesOf(s1[2]!).at(-1)?.content).toContain('"name":"brew-coffee"');

    // Session 2: the index lists it; skill_view returns the body.
    fake.enqueue(
      { toolCalls: [{ name: "skill_view", arguments: { name: "brew-coffee" } }] },
      { text: "Brewing." },
    );
    const r2 = await runHermes(["-z", "make me a coffee"], { env, cwd: box.work });
    expect(r2.code).toBe(0);
    const s2 = fake.requests.slice(3);
    const system2 = systemOf(s2[0]!);
    expect(system2).toContain("\nkitchen: brew-coffee (Brew pour-over coffee the way…)\n");
    expect(system2).not.toContain("Grind 18 g");
    const viewed = JSON.parse(String(toolMessagesOf(s2[1]!).at(-1)?.content)) as { content: string };
    expect(viewed.content).toBe(`# Brewing\n\n${BODY}`);

    // -z "/brew-coffee arg": the user message carries the body and the argument.
    fake.enqueue({ text: "Two cups coming." });
    const r3 = await runHermes(["-z", "/brew-coffee for two cups"], { env, cwd: box.work });
    expect(r3.code).toBe(0);
    expect(r3.stdout).toBe("Two cups coming.\n");
    const user = lastUserOf(fake.requests.at(-1)!);
    expect(user).toContain(BODY);
    expect(user).toContain("Arguments: for two cups");
    expect(user).not.toContain("/brew-coffee for two cups\n");

    // chat -q does the same; an unknown /name goes through as typed.
    fake.enqueue({ text: "ok" }, { text: "ok" });
    expect((await runHermes(["chat", "-q", "/brew-coffee strong"], { env, cwd: box.work })).code).toBe(0);
    expect(lastUserOf(fake.requests.at(-1)!)).toContain("Arguments: strong");
    expect((await runHermes(["-z", "/not-a-skill hello"], { env, cwd: box.work })).code).toBe(0);
    expect(lastUserOf(fake.requests.at(-1)!)).toBe("/not-a-skill hello");
  });

  it("a fresh home gets the bundled skills; an update keeps the user's edit and does not re-add a deleted one", async () => {
    const box = sandbox(openaiConfig(fake));
    fake.enqueue({ text: "hi" });
    expect(
      (await runHermes(["-z", "hi"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work })).code,
    ).toBe(0);
    for (const name of ["plan", "systematic-debugging", "code-review"]) {
      expect(existsSync(join(box.home, "skills/software-development", name, "SKILL.md")), name).toBe(true);
    }
    const size = await runHermes(["prompt-size"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(size.stdout).toMatch(/^ {2}skills +\d+ chars/m);

    // A bundle of our own, released twice.
    const bundle = tempDir("hermes-bundle-");
    cpSync(join(ROOT, "skills/software-development/plan"), join(bundle, "dev/plan"), { recursive: true });
    cpSync(join(ROOT, "skills/software-development/code-review"), join(bundle, "dev/code-review"), {
      recursive: true,
    });
    const home = sandbox(openaiConfig(fake)).home;
    const env = cleanEnv({ HERMES_HOME: home, HERMES_BUNDLED_SKILLS: bundle });
    fake.enqueue({ text: "ok" });
    expect((await runHermes(["-z", "hi"], { env, cwd: box.work })).code).toBe(0);
    const planPath = join(home, "skills/dev/plan/SKILL.md");
    const edited = readFileSync(planPath, "utf8").replace(
      "Turn a multi-step request",
      "My own way to turn a request",
    );
    writeFileSync(planPath, edited);
    rmSync(join(home, "skills/dev/code-review"), { recursive: true });

    const bump = (rel: string, from: string, to: string) => {
      const p = join(bundle, rel);
      writeFileSync(p, readFileSync(p, "utf8").replace(from, to));
    };
    bump("dev/plan/SKILL.md", "version: 1.0.0", "version: 1.1.0");
    bump("dev/code-review/SKILL.md", "version: 1.0.0", "version: 1.1.0");
    cpSync(join(ROOT, "skills/software-development/release-notes"), join(bundle, "dev/release-notes"), {
      recursive: true,
    });
    fake.enqueue({ text: "ok" });
    expect((await runHermes(["-z", "hi"], { env, cwd: box.work })).code).toBe(0);
    expect(readFileSync(planPath, "utf8")).toBe(edited);
    expect(existsSync(join(home, "skills/dev/code-review"))).toBe(false);
    expect(existsSync(join(home, "skills/dev/release-notes/SKILL.md"))).toBe(true);
    const system = systemOf(fake.requests.at(-1)!);
    expect(system).toContain(" plan (My own way to turn a request");
    expect(system).not.toContain("code-review");
    expect(system).toContain(" release-notes (");
  });

  it("/skills lists skills in the chat, /<name> runs one, and /reload-skills --now rebuilds the index", async () => {
    const box = sandbox(openaiConfig(fake));
    const env = cleanEnv({ HERMES_HOME: box.home });
    fake.enqueue(
      {
        toolCalls: [
          { name: "skill_manage", arguments: { action: "create", name: "brew-coffee", content: COFFEE } },
        ],
      },
      { text: "Saved." },
      { text: "Now listed." },
      { text: "Brewing." },
    );
    const r = await runHermes([], {
      env,
      cwd: box.work,
      input:
        "save my coffee skill\n/reload-skills\n/reload-skills --now\nwhat now\n/skills\n/brew-coffee decaf\n",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("next session");
    expect(r.stdout).toMatch(/brew-coffee\s+Brew pour-over coffee/);
    const convo = fake.requests;
    expect(systemOf(convo[0]!)).not.toContain("brew-coffee");
    expect(systemOf(convo[1]!)).not.toContain("brew-coffee");
    expect(systemOf(convo[2]!)).toContain(" brew-coffee (");
    expect(lastUserOf(convo[3]!)).toContain("Arguments: decaf");
  });
});
