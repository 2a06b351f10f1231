import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedSkill } from "./skill-file.js";

/**
 * The bundled SKILL.md files as parsed when the package was built (`dist/bundled-skills.json`,
 * written by scripts/bundle.mjs). A new home installs every bundled skill and indexes it before
 * its first request; parsing their YAML there is most of that cost. An entry is used only for the
 * exact text it was made from (its sha256) in a folder of the same path, and only by the bundle
 * built together with it (the build id), so the answer is the one parseSkillMd would give.
 */

/** Set by the bundler (esbuild `define`); absent when the code runs from src/ or tsc's dist/. */
declare const __HERMES_BUILD_ID__: string | undefined;

export interface PrebuiltSkills {
  buildId: string;
  /** `relDir` + "\0" + sha256 of the SKILL.md text → what parseSkillMd returned for it. */
  skills: Record<string, ParsedSkill>;
}

export const PREBUILT_FILE = join("dist", "bundled-skills.json");

export const prebuiltKey = (relDir: string, textSha256: string): string => `${relDir}\0${textSha256}`;

let loaded: PrebuiltSkills["skills"] | null | undefined;

/** The build's parse of this SKILL.md, or undefined (another text, another build, no table). */
export function prebuiltParse(
  packageRoot: string | undefined,
  relDir: string,
  textSha256: string,
): ParsedSkill | undefined {
  if (loaded === undefined) loaded = load(packageRoot);
  const hit = loaded?.[prebuiltKey(relDir, textSha256)];
  return hit ? structuredClone(hit) : undefined;
}

function load(packageRoot: string | undefined): PrebuiltSkills["skills"] | null {
  const buildId = typeof __HERMES_BUILD_ID__ === "string" ? __HERMES_BUILD_ID__ : undefined;
  if (!buildId || !packageRoot) return null;
  try {
    const table = JSON.parse(
      readFileSync(join(packageRoot, PREBUILT_FILE), "utf8"),
    ) as Partial<PrebuiltSkills>;
    return table.buildId === buildId && table.skills && typeof table.skills === "object"
      ? table.skills
      : null;
  } catch {
    return null; // no table (a build without one): parse as usual
  }
}
