import type { InstallDecision } from "./policy.js";
import type { Finding, ScanResult, TrustLevel } from "./types.js";

/** Findings as the user reads them: one line each, `file:line  SEVERITY  rule  what`, worst first. */
export function formatFindings(findings: readonly Finding[], limit = 40): string[] {
  const shown = findings.slice(0, limit);
  const width = Math.max(0, ...shown.map((f) => `${f.file}:${f.line}`.length));
  const lines = shown.map(
    (f) =>
      `  ${`${f.file}:${f.line}`.padEnd(width)}  ${f.severity.toUpperCase().padEnd(8)}  ${f.rule}  ${f.description}${f.match ? `: ${f.match}` : ""}`,
  );
  if (findings.length > shown.length) lines.push(`  … and ${findings.length - shown.length} more`);
  return lines;
}

/** The scan report: verdict, the findings that matter, and the install decision when given. */
export function formatScanReport(
  label: string,
  result: ScanResult,
  trust: TrustLevel,
  decision?: InstallDecision,
  options: { all?: boolean } = {},
): string {
  const shown = options.all ? result.findings : result.findings.filter((f) => f.severity !== "low");
  const lines = [
    `Scan of ${label} (${trust} source): ${result.verdict.toUpperCase()}, ${result.findings.length} finding${result.findings.length === 1 ? "" : "s"} in ${result.filesScanned} file${result.filesScanned === 1 ? "" : "s"}`,
    ...formatFindings(shown),
  ];
  if (decision) {
    const word =
      decision.action === "allow" ? "allowed" : decision.action === "ask" ? "needs confirmation" : "refused";
    lines.push(`Decision: ${word} (${decision.reason})`);
  }
  return lines.join("\n");
}
