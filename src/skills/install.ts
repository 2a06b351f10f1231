import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { findSkill } from "./discovery.js";
import { decideInstall, type InstallDecision, trustOfUrl } from "./guard/policy.js";
import { scanSkillDir, verdictOf } from "./guard/scan.js";
import type { Finding, GuardScreens, ScanResult, TrustLevel } from "./guard/types.js";
import { contentHash, type InstallRecord, saveRecord } from "./install-lock.js";
import {
  type Fetched,
  fetchSource,
  isRemote,
  parseSource,
  type SkillSource,
  SourceError,
} from "./install-source.js";
import { SKILL_FILE, skillsDir, validateCategory } from "./paths.js";
import { parseSkillMd } from "./skill-file.js";

/**
 * Installing a skill: fetch into quarantine, find the skill, scan it, decide by trust and verdict,
 * and only then move it under skills/. Nothing is written under skills/ before `commit()`, so a
 * refused, declined or failed install leaves nothing there.
 */

export interface InstallRequest {
  home: string;
  /** A folder, an archive, a URL or owner/repo (see parseSource); or an already parsed source. */
  source: string | SkillSource;
  cwd?: string;
  ref?: string;
  /** Folder of the skill inside the fetched tree. */
  path?: string;
  /** Admit a caution verdict (never a dangerous one). */
  force?: boolean;
  /** `skills.trusted_sources`. */
  trustedSources?: readonly string[];
  screens?: GuardScreens;
  /** Replace an installed skill of the same name (update). */
  replace?: boolean;
  signal?: AbortSignal;
}

export interface Candidate {
  source: SkillSource;
  name: string;
  description: string;
  trust: TrustLevel;
  scan: ScanResult;
  decision: InstallDecision;
  /** Where the skill will live. */
  destination: string;
  /** An installed skill this one replaces. */
  replaces?: string;
  /** Moves the skill into place and records it. Throws when the move fails (nothing is left half-done). */
  commit(): InstallRecord;
  /** Drops the quarantined copy. Safe to call more than once. */
  discard(): void;
}

export class InstallError extends Error {
  override name = "InstallError";
}

const MAX_SEARCH_DEPTH = 4;

/** Folders holding SKILL.md under `tree` (skipping hidden folders), shallowest first. */
function skillFolders(tree: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (existsSync(join(dir, SKILL_FILE))) {
      out.push(dir);
      return;
    }
    if (depth >= MAX_SEARCH_DEPTH) return;
    let names: string[] = [];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      if (!n.startsWith(".") && lstatSync(p).isDirectory()) walk(p, depth + 1);
    }
  };
  walk(tree, 0);
  return out;
}

/** The skill's folder inside a fetched tree. */
export function locateSkillRoot(tree: string, subpath?: string): string {
  if (subpath) {
    const dir = resolve(tree, subpath);
    if (relative(tree, dir).split(sep).includes(".."))
      throw new InstallError(`--path ${subpath} leaves the source`);
    if (existsSync(join(dir, SKILL_FILE))) return dir;
    // Release tarballs wrap everything in one top folder (repo-1.2/): the path may be given without it.
    const top = readdirSync(tree);
    const inner = top.length === 1 ? resolve(tree, top[0]!, subpath) : undefined;
    if (inner && existsSync(join(inner, SKILL_FILE))) return inner;
    throw new InstallError(`no ${SKILL_FILE} in ${subpath}`);
  }
  const found = skillFolders(tree);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new InstallError(`no ${SKILL_FILE} found in the source`);
  const names = found.slice(0, 10).map((d) => relative(tree, d).split(sep).join("/"));
  throw new InstallError(
    `the source holds ${found.length} skills; pick one with --path: ${names.join(", ")}`,
  );
}

/** Links and devices an archive carried: never extracted, always reported. */
function archiveFindings(skipped: Fetched["skipped"], tree: string, root: string): Finding[] {
  const out: Finding[] = [];
  const base = relative(tree, root) || ".";
  for (const s of skipped) {
    const rel = relative(base, s.path).split(sep).join("/");
    // Entries beside the chosen skill are not installed, so they do not count against it.
    if (rel.startsWith("..")) continue;
    const escapes =
      s.target !== undefined && (s.target.startsWith("/") || s.target.split("/").includes(".."));
    out.push({
      rule: s.kind === "special" ? "archive_special_file" : escapes ? "archive_link_escape" : "archive_link",
      severity: escapes ? "critical" : "high",
      category: "structure",
      file: rel,
      line: 0,
      match: s.target ? `-> ${s.target}` : s.kind,
      description:
        s.kind === "special"
          ? "the archive holds a device or pipe (not installed)"
          : `the archive holds a ${s.kind}${escapes ? " pointing outside the skill" : ""} (not installed)`,
    });
  }
  return out;
}

function moveInto(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true });
  }
}

/**
 * Fetches and judges a skill. Resolves to a candidate the caller commits (after any confirmation)
 * or discards; throws InstallError / SourceError when there is nothing to judge.
 */
export async function prepareInstall(req: InstallRequest): Promise<Candidate> {
  const source =
    typeof req.source === "string"
      ? parseSource(req.source, req.cwd ?? process.cwd(), {
          ...(req.ref ? { ref: req.ref } : {}),
          ...(req.path ? { path: req.path } : {}),
        })
      : req.source;
  const fetched = await fetchSource(source, req.home, req.signal);
  try {
    const root = locateSkillRoot(fetched.tree, source.subpath);
    const skillMd = join(root, SKILL_FILE);
    const parsed = parseSkillMd(readFileSync(skillMd, "utf8"), relative(fetched.tree, skillMd) || SKILL_FILE);
    if (!parsed.ok) throw new InstallError(parsed.error);
    const { skill } = parsed;
    const trust: TrustLevel = isRemote(source)
      ? trustOfUrl(source.location, req.trustedSources)
      : "community";
    const scanned = scanSkillDir(root, req.screens ? { screens: req.screens } : {});
    const findings = [...archiveFindings(fetched.skipped, fetched.tree, root), ...scanned.findings];
    const scan: ScanResult = { ...scanned, name: skill.name, findings, verdict: verdictOf(findings) };
    const decision = decideInstall(scan.verdict, trust, req.force === true);

    const existing = findSkill(req.home, skill.name);
    if (existing && !req.replace)
      throw new InstallError(
        `a skill named '${skill.name}' is already installed at ${existing.dir}; 'hermes skills update ${skill.name}' replaces it`,
      );
    const category = skill.category && !validateCategory(skill.category) ? skill.category : undefined;
    const destination =
      existing?.dir ?? join(skillsDir(req.home), ...(category ? [category] : []), skill.name);
    let done = false;
    const candidate: Candidate = {
      source,
      name: skill.name,
      description: skill.description,
      trust,
      scan,
      decision,
      destination,
      ...(existing ? { replaces: existing.dir } : {}),
      commit: () => {
        if (done) throw new InstallError("this install was already committed or discarded");
        if (decision.action !== "allow") throw new InstallError(`refused: ${decision.reason}`);
        done = true;
        const previous = join(fetched.dir, "previous");
        if (existsSync(destination)) renameSync(destination, previous);
        try {
          moveInto(root, destination);
        } catch (err) {
          rmSync(destination, { recursive: true, force: true });
          if (existsSync(previous)) renameSync(previous, destination);
          fetched.discard();
          throw err;
        }
        const record: InstallRecord = {
          name: skill.name,
          dir: relative(skillsDir(req.home), destination).split(sep).join("/"),
          kind: source.kind,
          location: source.location,
          ...(source.ref ? { ref: source.ref } : {}),
          ...(source.subpath ? { subpath: source.subpath } : {}),
          trust,
          verdict: scan.verdict,
          ...(scan.verdict === "caution" && trust === "community" ? { forced: true } : {}),
          installedAt: new Date().toISOString(),
          hash: contentHash(destination),
        };
        saveRecord(req.home, record);
        fetched.discard();
        return record;
      },
      discard: () => {
        done = true;
        fetched.discard();
      },
    };
    return candidate;
  } catch (err) {
    fetched.discard();
    throw err;
  }
}

export { SourceError };
