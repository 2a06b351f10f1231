// Dangerous-command screening against the approval corpus and the bypass corpora: false negatives,
// false positives, dangerous commands let through unasked, and the cost of screening. Measured
// twice: with the hand-written splitter only (what runs until, or if never, the bash grammar
// loads), then with the bash grammar. Uses the built dist/ (run `npm run build` first).
import { existsSync } from "node:fs";
import { screenScript } from "../dist/tools/approval/commands.js";
import { DANGEROUS_PATTERNS, detectCommand } from "../dist/tools/approval/detect.js";
import { grammarLoadMs, loadShellGrammar } from "../dist/tools/approval/grammar.js";
import { HARDLINE_PATTERNS } from "../dist/tools/approval/hardline.js";
import { OBFUSCATED } from "../test/fixtures/approval-bypass-obfuscated.ts";
import { DANGEROUS, EVERYDAY, WARN } from "../test/fixtures/approval-corpus.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
const OPTS = { cwd: "/home/me/proj", home: "/home/me" };

const indirectFile = new URL("../test/fixtures/approval-bypass-indirect.ts", import.meta.url);
const INDIRECT = existsSync(indirectFile) ? ((await import(indirectFile.href)).INDIRECT ?? []) : [];

const risky = (command) => {
  const d = detectCommand(command);
  return { hardline: d.hardline.length > 0, any: d.hardline.length + d.dangerous.length > 0 };
};

function measure() {
  const falseNegatives = DANGEROUS.filter((c) => {
    const d = detectCommand(c.command);
    const caught = [...d.hardline, ...d.dangerous].some((m) => m.class === c.class);
    return !caught || Boolean(c.hardline) !== d.hardline.length > 0;
  }).map((c) => c.command);
  const falsePositives = EVERYDAY.filter((command) => {
    const d = detectCommand(command);
    return d.hardline.length + d.dangerous.length + d.warnings.length > 0;
  });
  const warnMisses = WARN.filter((w) => !detectCommand(w.command).warnings.some((m) => m.key === w.key));
  const letThrough = (cases) => cases.filter((c) => !risky(c.command).any).map((c) => c.command);
  const notBlocked = (cases) =>
    cases.filter((c) => c.hardline && !risky(c.command).hardline).map((c) => c.command);

  const all = [...DANGEROUS.map((c) => c.command), ...EVERYDAY, ...WARN.map((w) => w.command)];
  for (const c of all) detectCommand(c, OPTS); // warm-up
  // Median over commands of the mean time per call.
  const medianUs = (fn) => {
    const per = all.map((c) => {
      const t = performance.now();
      for (let r = 0; r < ROUNDS; r++) fn(c);
      return ((performance.now() - t) * 1000) / ROUNDS;
    });
    return per.sort((a, b) => a - b)[Math.floor(per.length / 2)];
  };
  const parseUs = medianUs((c) => screenScript(c));
  const started = performance.now();
  const detectUs = medianUs((c) => detectCommand(c, OPTS));
  const seconds = (performance.now() - started) / 1000;
  return {
    falseNegatives,
    falsePositives,
    warnMisses,
    obfuscated: letThrough(OBFUSCATED),
    obfuscatedNotBlocked: notBlocked(OBFUSCATED),
    indirect: letThrough(INDIRECT),
    indirectNotBlocked: notBlocked(INDIRECT),
    parseUs,
    detectUs,
    perSecond: Math.round((ROUNDS * all.length) / seconds),
  };
}

const before = measure();
const loaded = await loadShellGrammar();
const after = measure();

const col = (v) => String(v).padEnd(24);
const row = (label, f) => console.log(`  ${label.padEnd(30)}${col(f(before))}${f(after)}`);
const listed = (label, items) => {
  if (items.length > 0) console.log(`    ${label}: ${items.join(" | ")}`);
};

console.log("approval corpus");
console.log(
  `  patterns:         ${DANGEROUS_PATTERNS.length} dangerous + ${HARDLINE_PATTERNS.length} hardline`,
);
console.log(
  `  corpus:           ${DANGEROUS.length} dangerous, ${EVERYDAY.length} everyday, ${WARN.length} warn-only; ` +
    `bypass: ${OBFUSCATED.length} obfuscated, ${INDIRECT.length} indirect`,
);
console.log(
  `  ${"".padEnd(30)}${col("splitter only")}${loaded ? "bash grammar" : "bash grammar (failed to load)"}`,
);
row("false negatives", (m) => m.falseNegatives.length);
row("false positives", (m) => m.falsePositives.length);
row("warn misses", (m) => m.warnMisses.length);
row("obfuscated let through", (m) => `${m.obfuscated.length} of ${OBFUSCATED.length}`);
row("obfuscated not hardline", (m) => m.obfuscatedNotBlocked.length);
row("indirect let through", (m) => `${m.indirect.length} of ${INDIRECT.length}`);
row("indirect not hardline", (m) => m.indirectNotBlocked.length);
row("median parse per command", (m) => `${m.parseUs.toFixed(1)} µs`);
row("median screening per command", (m) => `${m.detectUs.toFixed(1)} µs`);
row("throughput", (m) => `${m.perSecond.toLocaleString("en-US")} commands/s`);
console.log(`  grammar load (once):          ${grammarLoadMs()?.toFixed(1) ?? "-"} ms`);
listed("false negatives (grammar)", after.falseNegatives);
listed("false positives (grammar)", after.falsePositives);
listed("obfuscated let through (grammar)", after.obfuscated);
listed("indirect let through (grammar)", after.indirect);
