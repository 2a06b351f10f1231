import type { ParsedSkill } from "./skill-file.js";

/**
 * Which skills a session may see. A skill is hidden when its `platforms` exclude this OS, when the
 * config disables it, when a toolset or tool it requires is missing, or when it is a fallback for a
 * toolset or tool that is present (the better tool should be used instead).
 */

export interface VisibilityContext {
  /** `process.platform` of the machine the tools act on. */
  os: NodeJS.Platform | string;
  /** Tool names this session exposes. */
  tools: ReadonlySet<string>;
  /** Toolsets those tools belong to. */
  toolsets: ReadonlySet<string>;
  /** Names hidden by `skills.disabled` and `skills.platform_disabled.<platform>`. */
  disabled: ReadonlySet<string>;
}

/** The fields visibility reads (a parsed skill and an index entry both have them). */
export type VisibilityFields = Pick<
  ParsedSkill,
  "name" | "platforms" | "requiresToolsets" | "requiresTools" | "fallbackForToolsets" | "fallbackForTools"
>;

export type HiddenReason =
  | { kind: "platform"; platforms: string[] }
  | { kind: "disabled" }
  | { kind: "requires"; missing: string[] }
  | { kind: "fallback"; present: string[] };

const OS_NAMES: Readonly<Record<string, string>> = {
  darwin: "macos",
  linux: "linux",
  win32: "windows",
  freebsd: "freebsd",
  openbsd: "openbsd",
};

/** Aliases skill authors use for the same OS. */
const PLATFORM_ALIASES: Readonly<Record<string, string>> = {
  darwin: "macos",
  mac: "macos",
  osx: "macos",
  win32: "windows",
  win: "windows",
};

export function osName(platform: string): string {
  return OS_NAMES[platform] ?? platform;
}

/** True when the skill's `platforms` list is empty or names this OS. */
export function matchesPlatform(skill: Pick<ParsedSkill, "platforms">, os: string): boolean {
  if (skill.platforms.length === 0) return true;
  const here = osName(os);
  return skill.platforms.some((p) => (PLATFORM_ALIASES[p] ?? p) === here);
}

/** Why a skill is hidden in this context, or undefined when it is visible. */
export function hiddenReason(skill: VisibilityFields, ctx: VisibilityContext): HiddenReason | undefined {
  if (!matchesPlatform(skill, ctx.os)) return { kind: "platform", platforms: skill.platforms };
  if (ctx.disabled.has(skill.name)) return { kind: "disabled" };
  const missing = [
    ...skill.requiresToolsets.filter((t) => !ctx.toolsets.has(t)),
    ...skill.requiresTools.filter((t) => !ctx.tools.has(t)),
  ];
  if (missing.length > 0) return { kind: "requires", missing };
  const present = [
    ...skill.fallbackForToolsets.filter((t) => ctx.toolsets.has(t)),
    ...skill.fallbackForTools.filter((t) => ctx.tools.has(t)),
  ];
  if (present.length > 0) return { kind: "fallback", present };
  return undefined;
}

export const isVisible = (skill: VisibilityFields, ctx: VisibilityContext): boolean =>
  hiddenReason(skill, ctx) === undefined;

/** The disabled set for a platform from `skills.disabled` + `skills.platform_disabled`. */
export function disabledSkills(
  settings: { disabled?: readonly string[]; platform_disabled?: Readonly<Record<string, readonly string[]>> },
  platform: string,
): Set<string> {
  return new Set([...(settings.disabled ?? []), ...(settings.platform_disabled?.[platform] ?? [])]);
}
