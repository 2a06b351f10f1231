// The skill security scan against its corpora: malicious skills refused for a community source,
// ordinary skills (bundled ones included) passing, rules hit, and the scan time per skill. Measured
// with the scan's own rules only and with the command and prose screens added (what
// `hermes skills install` runs). Uses the built dist/ (run `npm run build` first).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadSkillScreens } from "../dist/runtime/skill-screens.js";
import { decideInstall } from "../dist/skills/guard/policy.js";
import { scanSkillDir } from "../dist/skills/guard/scan.js";

const ROOT = join(import.meta.dirname, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

const folders = (root) =>
  readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(root, e.name))
    .sort();

function skillFolders(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = join(dir, e.name);
      if (existsSync(join(p, "SKILL.md"))) out.push(p);
      else walk(p);
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

const malicious = folders(join(ROOT, "test", "fixtures", "skills-malicious"));
const ordinary = folders(join(ROOT, "test", "fixtures", "skills-ordinary"));
const bundled = skillFolders(join(ROOT, "skills"));

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

function run(label, options) {
  const coldStart = performance.now();
  scanSkillDir(malicious[0], options);
  const coldMs = performance.now() - coldStart;
  const refused = malicious.filter(
    (d) => decideInstall(scanSkillDir(d, options).verdict, "community").action === "block",
  );
  const dangerous = malicious.filter((d) => scanSkillDir(d, options).verdict === "dangerous");
  const passed = [...ordinary, ...bundled].filter((d) => scanSkillDir(d, options).verdict === "safe");
  const rules = new Set(malicious.flatMap((d) => scanSkillDir(d, options).findings.map((f) => f.rule)));
  const times = [...malicious, ...ordinary, ...bundled].map((d) => {
    const t = performance.now();
    for (let i = 0; i < ROUNDS; i++) scanSkillDir(d, options);
    return (performance.now() - t) / ROUNDS;
  });
  const missed = malicious.filter((d) => !refused.includes(d)).map((d) => d.split("/").pop());
  const flagged = [...ordinary, ...bundled].filter((d) => !passed.includes(d)).map((d) => d.split("/").pop());
  console.log(`\n${label}`);
  console.log(
    `  malicious refused (community):  ${refused.length}/${malicious.length}  (${dangerous.length} dangerous, ${refused.length - dangerous.length} caution)`,
  );
  console.log(
    `  ordinary passed (safe):         ${passed.length}/${ordinary.length + bundled.length}  (${ordinary.length} fixtures + ${bundled.length} bundled)`,
  );
  console.log(`  distinct rules hit by corpus:   ${rules.size}`);
  console.log(
    `  scan time per skill, ms:        median ${quantile(times, 0.5).toFixed(2)}  p95 ${quantile(times, 0.95).toFixed(2)}  max ${Math.max(...times).toFixed(2)}`,
  );
  console.log(`  first scan in the process, ms:  ${coldMs.toFixed(1)}`);
  if (missed.length > 0) console.log(`  NOT refused: ${missed.join(", ")}`);
  if (flagged.length > 0) console.log(`  NOT passed:  ${flagged.join(", ")}`);
}

console.log(
  `skills-scan: ${malicious.length} malicious, ${ordinary.length} ordinary, ${bundled.length} bundled skills; ${ROUNDS} rounds each`,
);
run("own rules only", {});
const t = performance.now();
const screens = await loadSkillScreens();
const loadMs = performance.now() - t;
run(`with command and prose screens (bash grammar loaded in ${loadMs.toFixed(0)} ms)`, { screens });
