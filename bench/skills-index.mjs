// The skills layer of the system prompt: bytes per skill in the index, and the time to build it
// with 500 skills installed: cold (every SKILL.md parsed), warm from the disk snapshot (a new
// process, nothing changed), and warm in-process (a second session in the same process).
// Uses dist/ (run `npm run build` first).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearIndexMemory, loadIndexEntries, snapshotPath } from "../dist/skills/index-cache.js";
import { buildSkillsIndex, renderSkillsIndex } from "../dist/skills/prompt-index.js";
import { fmt, median } from "./lib.mjs";

const SKILLS = Number(process.env.BENCH_SKILLS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CATEGORIES = [
  "devops",
  "data",
  "writing",
  "research",
  "software-development",
  "media",
  "productivity",
  "ops",
];

const home = mkdtempSync(join(tmpdir(), "hermes-bench-skills-"));
const body = (i) =>
  `# Skill ${i}\n\n${"1. A concrete step with a command and the check that follows it.\n".repeat(40)}\n## Pitfalls\n- One.\n`;
for (let i = 0; i < SKILLS; i++) {
  const cat = CATEGORIES[i % CATEGORIES.length];
  const name = `skill-${String(i).padStart(3, "0")}`;
  const dir = join(home, "skills", cat, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Handle task number ${i} the way this user wants it done.\nversion: 1.0.0\nmetadata:\n  hermes:\n    tags: [bench, ${cat}]\n---\n\n${body(i)}`,
  );
}

const tools = new Set(["skill_view", "skill_manage", "skills_list", "terminal"]);
const toolsets = new Set(["skills", "terminal"]);
// No bundled skills: only the generated ones are measured.
process.env.HERMES_BUNDLED_SKILLS = join(home, "no-bundle");
const input = { home, platform: "cli", os: process.platform, tools, toolsets, settings: {} };

const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};

const cold = [];
const disk = [];
const memory = [];
for (let r = 0; r < RUNS; r++) {
  clearIndexMemory();
  rmSync(snapshotPath(home), { force: true });
  cold.push(time(() => buildSkillsIndex(input)));
  clearIndexMemory();
  disk.push(time(() => buildSkillsIndex(input)));
  memory.push(time(() => buildSkillsIndex(input)));
}

const { entries } = loadIndexEntries(home);
const ctx = { os: process.platform, tools, toolsets, disabled: new Set() };
const full = Buffer.byteLength(renderSkillsIndex(entries, ctx, { canWrite: true }));
const one = Buffer.byteLength(renderSkillsIndex(entries.slice(0, 1), ctx, { canWrite: true }));
const perSkill = (full - one) / (entries.length - 1);

console.log(`skills index with ${SKILLS} skills (median of ${RUNS}; file cache warm)`);
console.log(
  `  index layer: ${fmt(full / 1024)} KB, ${fmt(perSkill, 0)} bytes per skill, fixed framing ${fmt(one - perSkill, 0)} bytes`,
);
console.log(`  build, cold (parse every SKILL.md):      ${fmt(median(cold))} ms`);
console.log(`  build, warm from disk snapshot:          ${fmt(median(disk))} ms`);
console.log(`  build, warm in-process:                  ${fmt(median(memory))} ms`);
rmSync(home, { recursive: true, force: true });
