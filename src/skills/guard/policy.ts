import type { TrustLevel, Verdict } from "./types.js";

/**
 * Who a skill comes from decides what its verdict allows. Bundled skills ship with Hermes;
 * trusted sources are a short built-in list plus `skills.trusted_sources`; everything else (a
 * local folder, any other URL) is community.
 */

/** Skill collections published by the model vendors themselves. */
export const BUILTIN_TRUSTED_SOURCES: readonly string[] = [
  "openai/skills",
  "anthropics/skills",
  "huggingface/skills",
  "NVIDIA/skills",
];

export type InstallDecision =
  | { action: "allow"; reason: string }
  | { action: "ask"; reason: string }
  | { action: "block"; reason: string; forceable: boolean };

type Answer = "allow" | "ask" | "block";

/** Rows: trust level; columns: safe, caution, dangerous. */
const POLICY: Record<TrustLevel, readonly [Answer, Answer, Answer]> = {
  bundled: ["allow", "allow", "allow"],
  trusted: ["allow", "allow", "block"],
  community: ["allow", "block", "block"],
  // The agent is asked to rewrite a skill the scan calls dangerous; it may keep a cautious one.
  "agent-created": ["allow", "allow", "ask"],
};

const COLUMN: Record<Verdict, 0 | 1 | 2> = { safe: 0, caution: 1, dangerous: 2 };

/** What installing a skill with this verdict from this source does. `force` admits caution, never dangerous. */
export function decideInstall(verdict: Verdict, trust: TrustLevel, force = false): InstallDecision {
  const answer = POLICY[trust][COLUMN[verdict]];
  if (answer === "allow") return { action: "allow", reason: `${trust} source, ${verdict} verdict` };
  if (answer === "ask") return { action: "ask", reason: `${trust} skill with a ${verdict} verdict` };
  if (verdict === "dangerous")
    return {
      action: "block",
      reason: `${trust} source with a dangerous verdict; --force does not override it`,
      forceable: false,
    };
  if (force) return { action: "allow", reason: `${trust} source, ${verdict} verdict, admitted by --force` };
  return {
    action: "block",
    reason: `${trust} source with a ${verdict} verdict; review the findings and use --force to install anyway`,
    forceable: true,
  };
}

/**
 * A source reduced to host + path for comparison: no scheme, credentials, `www.`, query,
 * fragment, trailing slash or `.git`; `owner/repo` alone means GitHub. Lowercase.
 */
export function normaliseSource(source: string): string {
  let s = source.trim();
  if (/^[\w-]+\/[\w.-]+(?:\/.*)?$/.test(s) && !s.includes(":")) s = `github.com/${s}`;
  s = s
    .replace(/^git\+/, "")
    .replace(/^[a-z][\w+.-]*:\/\//i, "")
    .replace(/^[^/@]*@/, "")
    .replace(/^(github\.com):/i, "$1/")
    .replace(/^www\./i, "")
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "");
  return s.toLowerCase();
}

/** Trust of a remote source: trusted when it equals a listed source or lies under it. */
export function trustOfUrl(url: string, extraTrusted: readonly string[] = []): TrustLevel {
  const src = normaliseSource(url);
  for (const entry of [...BUILTIN_TRUSTED_SOURCES, ...extraTrusted]) {
    const t = normaliseSource(entry);
    if (t !== "" && (src === t || src.startsWith(`${t}/`))) return "trusted";
  }
  return "community";
}
