import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REVIEW_INSTRUCTIONS } from "../../src/skills/review-prompt.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { messagesOf, openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";
import { skillMd } from "./install-support.js";

/** The learning loop through `hermes chat -q`, the scripted server answering as main and auxiliary model. */

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const isReview = (r: RecordedRequest): boolean => messagesOf(r)[0]?.content === REVIEW_INSTRUCTIONS;

const SKILL = skillMd(
  "changelog-sweep",
  "1. Read every file in `changes/`.\n2. Merge them into CHANGELOG.md.",
);

/** A turn of `reads` read_file calls (plus a skill_view of a bundled skill), then the answer. */
function scriptTurn(box: { work: string }, reads: number): ScriptedTurn[] {
  for (let i = 0; i < reads; i++) writeFileSync(join(box.work, `note-${i}.md`), `change ${i}\n`);
  return [
    {
      toolCalls: [
        { name: "skill_view", arguments: { name: "plan" } },
        ...Array.from({ length: reads }, (_, i) => ({
          name: "read_file",
          arguments: { path: `note-${i}.md` },
        })),
      ],
    },
    { text: "All notes merged." },
  ];
}

async function chat(box: { home: string; work: string }) {
  return runHermes(["chat", "-q", "merge the change notes into the changelog"], {
    env: cleanEnv({ HERMES_HOME: box.home }),
    cwd: box.work,
  });
}

describe("the learning loop", () => {
  it("reviews a 12-tool-call turn on the auxiliary model and saves the skill it proposes", async () => {
    const box = sandbox(openaiConfig(fake));
    fake.enqueue(...scriptTurn(box, 11), {
      text: JSON.stringify({
        skill: { action: "create", name: "changelog-sweep", category: "writing", content: SKILL },
        memory: [{ target: "memory", content: "Change notes live in changes/ in this project." }],
      }),
    });
    const r = await chat(box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("All notes merged.\n");
    expect(r.stderr).toContain(
      "[info] Learned from this turn: saved skill 'changelog-sweep', 1 memory entry.",
    );
    expect(readFileSync(join(box.home, "skills", "writing", "changelog-sweep", "SKILL.md"), "utf8")).toBe(
      SKILL,
    );
    expect(readFileSync(join(box.home, "memories", "MEMORY.md"), "utf8")).toContain(
      "Change notes live in changes/",
    );

    const review = fake.requests.find(isReview)!;
    const shown = String(messagesOf(review)[1]!.content);
    expect(shown.match(/^TOOL CALL /gm)).toHaveLength(12);
    expect(shown).toContain("USER: merge the change notes into the changelog");
    expect(shown).toContain("USED SKILL plan (its SKILL.md)");
    // The curator's clock: the new skill is the agent's, and the bundled one was viewed.
    const usage = JSON.parse(readFileSync(join(box.home, "skills", ".usage.json"), "utf8"));
    expect(usage["changelog-sweep"]).toMatchObject({ created_by: "agent" });
    expect(usage.plan).toMatchObject({ views: 1 });
  }, 60_000);

  it("records a skill run as a command for the curator", async () => {
    const box = sandbox(openaiConfig(fake));
    fake.enqueue({ text: "Here is the plan." });
    const r = await runHermes(["-z", "/plan ship the release"], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(r.stdout).toBe("Here is the plan.\n");
    const usage = JSON.parse(readFileSync(join(box.home, "skills", ".usage.json"), "utf8"));
    expect(usage.plan).toMatchObject({ uses: 1 });
    expect(Date.parse(usage.plan.last_used)).toBeGreaterThan(Date.now() - 60_000);
  }, 60_000);

  it("leaves the turn intact when the review fails", async () => {
    const box = sandbox(openaiConfig(fake));
    fake.enqueue(...scriptTurn(box, 11));
    fake.setResponder(() => ({
      fault: { kind: "http", status: 500, body: { error: { message: "review down" } } },
    }));
    const r = await chat(box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("All notes merged.\n");
    expect(r.stderr).not.toContain("Learned");
    expect(r.stderr).not.toContain("review down");
    expect(fake.requests.some(isReview)).toBe(true);
    expect(existsSync(join(box.home, "skills", "writing"))).toBe(false);
  }, 60_000);

  it("does not review a short turn, nor any turn with creation_nudge_interval 0", async () => {
    const short = sandbox(openaiConfig(fake));
    fake.enqueue(...scriptTurn(short, 3));
    expect((await chat(short)).code).toBe(0);
    expect(fake.requests.filter(isReview)).toEqual([]);

    const off = sandbox(openaiConfig(fake, "skills:\n  creation_nudge_interval: 0\n"));
    fake.enqueue(...scriptTurn(off, 11));
    expect((await chat(off)).code).toBe(0);
    expect(fake.requests.filter(isReview)).toEqual([]);

    // Without skill_manage in the session the review has nothing to write with.
    const noSkills = sandbox(openaiConfig(fake, "toolsets: [file]\n"));
    fake.enqueue(...scriptTurn(noSkills, 11));
    expect((await chat(noSkills)).code).toBe(0);
    expect(fake.requests.filter(isReview)).toEqual([]);

    // -z runs are made for scripts: nothing keeps the process alive after the answer.
    const scripted = sandbox(openaiConfig(fake));
    fake.enqueue(...scriptTurn(scripted, 11));
    const r = await runHermes(["-z", "merge the notes"], {
      env: cleanEnv({ HERMES_HOME: scripted.home }),
      cwd: scripted.work,
    });
    expect(r.stdout).toBe("All notes merged.\n");
    expect(fake.requests.filter(isReview)).toEqual([]);
    // Usage is still recorded.
    expect(JSON.parse(readFileSync(join(scripted.home, "skills", ".usage.json"), "utf8")).plan).toMatchObject(
      {
        views: 1,
      },
    );
  }, 60_000);
});
