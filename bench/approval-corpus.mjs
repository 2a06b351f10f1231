// Dangerous-command screening against the approval corpus: false positives, false negatives and
// detection throughput. Uses the built dist/ (run `npm run build` first) and the corpus fixture.
import { DANGEROUS_PATTERNS, detectCommand } from "../dist/tools/approval/detect.js";
import { HARDLINE_PATTERNS } from "../dist/tools/approval/hardline.js";
import { DANGEROUS, EVERYDAY, WARN } from "../test/fixtures/approval-corpus.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);

const falseNegatives = [];
for (const c of DANGEROUS) {
  const d = detectCommand(c.command);
  const caught = [...d.hardline, ...d.dangerous].some((m) => m.class === c.class);
  if (!caught || Boolean(c.hardline) !== d.hardline.length > 0) falseNegatives.push(c.command);
}
const falsePositives = EVERYDAY.filter((command) => {
  const d = detectCommand(command);
  return d.hardline.length + d.dangerous.length + d.warnings.length > 0;
});
const warnMisses = WARN.filter((w) => !detectCommand(w.command).warnings.some((m) => m.key === w.key));

const all = [...DANGEROUS.map((c) => c.command), ...EVERYDAY, ...WARN.map((w) => w.command)];
for (const c of all) detectCommand(c, { cwd: "/home/me/proj", home: "/home/me" }); // warm-up
const started = performance.now();
for (let r = 0; r < ROUNDS; r++)
  for (const c of all) detectCommand(c, { cwd: "/home/me/proj", home: "/home/me" });
const seconds = (performance.now() - started) / 1000;
const perSecond = Math.round((ROUNDS * all.length) / seconds);

console.log("approval corpus");
console.log(
  `  patterns:         ${DANGEROUS_PATTERNS.length} dangerous + ${HARDLINE_PATTERNS.length} hardline`,
);
console.log(
  `  corpus:           ${DANGEROUS.length} dangerous, ${EVERYDAY.length} everyday, ${WARN.length} warn-only`,
);
console.log(
  `  false negatives:  ${falseNegatives.length}${falseNegatives.length ? ` (${falseNegatives.join(" | ")})` : ""}`,
);
console.log(
  `  false positives:  ${falsePositives.length}${falsePositives.length ? ` (${falsePositives.join(" | ")})` : ""}`,
);
console.log(`  warn misses:      ${warnMisses.length}`);
console.log(
  `  throughput:       ${perSecond.toLocaleString("en-US")} commands/s (${((seconds * 1e6) / (ROUNDS * all.length)).toFixed(1)} µs each)`,
);
