import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type ExtractResult, extractTarGz } from "./install-tar.js";

/**
 * Where a skill comes from and how it is fetched. Every fetch lands in a fresh folder under
 * HERMES_HOME/cache/quarantine (outside skills/), where it is scanned before anything is installed.
 */

export type SourceKind = "local" | "git" | "tarball" | "skill-file";

export interface SkillSource {
  kind: SourceKind;
  /** What the user gave, normalised: an absolute path for local folders, a URL otherwise. */
  location: string;
  /** Git branch or tag. */
  ref?: string;
  /** Folder of the skill inside the fetched tree. */
  subpath?: string;
}

export interface Fetched {
  /** The quarantine folder (removed by `discard`). */
  dir: string;
  /** Where the fetched tree starts inside `dir`. */
  tree: string;
  /** Archive entries not extracted (links, devices). */
  skipped: ExtractResult["skipped"];
  discard(): void;
}

const MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;
const MAX_SKILL_FILE_BYTES = 1024 * 1024;
const FETCH_TIMEOUT_MS = 120_000;

const TARBALL = /\.(?:tar\.gz|tgz)$/i;
const MARKDOWN = /\.md$/i;
const GIT_HOSTS = /^(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)$/i;

export class SourceError extends Error {
  override name = "SourceError";
}

/** `https://github.com/o/r/tree/REF/some/dir` → the repository, the ref and the folder. */
function githubTree(url: URL): SkillSource | undefined {
  if (!GIT_HOSTS.test(url.hostname)) return undefined;
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts.length < 2) return undefined;
  const repo = `${url.protocol}//${url.host}/${parts[0]}/${parts[1]!.replace(/\.git$/, "")}.git`;
  if (parts[2] === "tree" || parts[2] === "-") {
    const at = parts[2] === "-" ? 4 : 3;
    const ref = parts[at];
    const sub = parts.slice(at + 1).join("/");
    return { kind: "git", location: repo, ...(ref ? { ref } : {}), ...(sub ? { subpath: sub } : {}) };
  }
  if (parts.length === 2) return { kind: "git", location: repo };
  return undefined;
}

/** Reads what the user typed: a folder, an archive, a SKILL.md URL, a git URL or `owner/repo[/dir]`. */
export function parseSource(
  spec: string,
  cwd: string,
  opts: { ref?: string; path?: string } = {},
): SkillSource {
  const s = spec.trim();
  if (!s) throw new SourceError("no source given");
  const extra = { ...(opts.ref ? { ref: opts.ref } : {}), ...(opts.path ? { subpath: opts.path } : {}) };
  const local = isAbsolute(s) || s.startsWith(".") || s.startsWith("~") ? s : undefined;
  const expanded = local?.startsWith("~") ? join(process.env.HOME ?? "", local.slice(1)) : local;
  const candidate = resolve(cwd, expanded ?? s);
  if (existsSync(candidate) && !/^[a-z][\w+.-]*:\/\//i.test(s)) {
    if (statSync(candidate).isDirectory()) return { kind: "local", location: candidate, ...extra };
    if (TARBALL.test(candidate)) return { kind: "tarball", location: candidate, ...extra };
    if (MARKDOWN.test(candidate)) return { kind: "local", location: candidate, ...extra };
    throw new SourceError(`${candidate} is neither a folder, a .tar.gz archive nor a SKILL.md file`);
  }
  if (local) throw new SourceError(`${candidate} does not exist`);
  if (/^git@[\w.-]+:/.test(s) || /^(?:ssh|git|git\+https?|git\+ssh):\/\//i.test(s))
    return { kind: "git", location: s.replace(/^git\+/, ""), ...extra };
  if (/^(?:https?|file):\/\//i.test(s)) {
    const url = new URL(s);
    const fragment = url.hash.slice(1);
    url.hash = "";
    const path = url.pathname;
    if (TARBALL.test(path)) return { kind: "tarball", location: url.toString(), ...extra };
    if (url.protocol !== "file:" && MARKDOWN.test(path)) {
      // A GitHub page of the file is HTML; its raw twin is the file.
      const blob = /^\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(path);
      const raw =
        url.hostname === "github.com" && blob
          ? `https://raw.githubusercontent.com/${blob[1]}/${blob[2]}/${blob[3]}`
          : url.toString();
      return { kind: "skill-file", location: raw };
    }
    const tree = url.protocol === "file:" ? undefined : githubTree(url);
    if (tree) return { ...tree, ...(fragment ? { ref: fragment } : {}), ...extra };
    return { kind: "git", location: url.toString(), ...(fragment ? { ref: fragment } : {}), ...extra };
  }
  const short = /^([\w-]+)\/([\w.-]+)(?:\/(.+))?$/.exec(s);
  if (short) {
    const sub = short[3] ? { subpath: short[3] } : {};
    return {
      kind: "git",
      location: `https://github.com/${short[1]}/${short[2]!.replace(/\.git$/, "")}.git`,
      ...sub,
      ...extra,
    };
  }
  throw new SourceError(`'${s}' is not a folder, a URL or owner/repo`);
}

/** The source as the trust list sees it: the URL, or `local` for anything on this machine. */
export const isRemote = (src: SkillSource): boolean =>
  src.kind !== "local" && !(src.kind === "tarball" && !/^[a-z][\w+.-]*:\/\//i.test(src.location));

/** Quarantine folders older than this were left by a process that died mid-install. */
const STALE_QUARANTINE_MS = 24 * 3600_000;

function quarantine(home: string): string {
  const root = join(home, "cache", "quarantine");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(root)) {
    const stale = Date.now() - Number.parseInt(name.split("-")[0] ?? "", 36) > STALE_QUARANTINE_MS;
    if (stale) rmSync(join(root, name), { recursive: true, force: true });
  }
  const dir = join(root, `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

function runGit(args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      "git",
      args,
      {
        timeout: FETCH_TIMEOUT_MS,
        maxBuffer: 4 * 1024 * 1024,
        ...(signal ? { signal } : {}),
        env: {
          ...process.env,
          GIT_TERMINAL_PROMPT: "0",
          GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes",
          GIT_LFS_SKIP_SMUDGE: "1",
        },
      },
      (err, _stdout, stderr) => {
        if (!err) return resolvePromise();
        const code = (err as NodeJS.ErrnoException).code;
        const why =
          code === "ENOENT"
            ? "the git program is not installed"
            : String(stderr).trim().split("\n").slice(-2).join(" ") || err.message;
        reject(new SourceError(`git clone failed: ${why}`));
      },
    );
  });
}

/** Downloads at most `limit` bytes; larger answers are refused. */
async function download(url: string, limit: number, signal?: AbortSignal): Promise<Buffer> {
  if (url.startsWith("file:")) return readFileSync(fileURLToPath(url));
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: "follow",
    });
  } catch (err) {
    throw new SourceError(`download of ${url} failed: ${(err as Error).message}`);
  }
  if (!res.ok) throw new SourceError(`download of ${url} failed: HTTP ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > limit) throw new SourceError(`${url} is ${declared} bytes; the limit is ${limit}`);
  const chunks: Buffer[] = [];
  let total = 0;
  if (!res.body) return Buffer.alloc(0);
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > limit) throw new SourceError(`${url} is larger than ${limit} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** Fetches a source into a fresh quarantine folder of `home`. The caller must `discard()` it. */
export async function fetchSource(src: SkillSource, home: string, signal?: AbortSignal): Promise<Fetched> {
  const dir = quarantine(home);
  const discard = (): void => rmSync(dir, { recursive: true, force: true });
  const tree = join(dir, "tree");
  let skipped: ExtractResult["skipped"] = [];
  try {
    switch (src.kind) {
      case "local": {
        const from = src.location;
        if (statSync(from).isDirectory()) {
          cpSync(from, tree, {
            recursive: true,
            verbatimSymlinks: true,
            filter: (p) => !/(?:^|[/\\])\.(?:git|hg|svn)$/.test(p),
          });
        } else {
          mkdirSync(tree);
          cpSync(from, join(tree, "SKILL.md"));
        }
        break;
      }
      case "git": {
        const args = [
          "-c",
          "protocol.ext.allow=never",
          "clone",
          "--depth",
          "1",
          "--no-tags",
          "--single-branch",
        ];
        if (src.ref) args.push("--branch", src.ref);
        args.push("--", src.location, tree);
        await runGit(args, signal);
        rmSync(join(tree, ".git"), { recursive: true, force: true });
        break;
      }
      case "tarball": {
        const data = /^[a-z][\w+.-]*:\/\//i.test(src.location)
          ? await download(src.location, MAX_DOWNLOAD_BYTES, signal)
          : readFileSync(src.location);
        skipped = extractTarGz(data, tree).skipped;
        break;
      }
      case "skill-file": {
        const data = await download(src.location, MAX_SKILL_FILE_BYTES, signal);
        mkdirSync(tree);
        writeFileSync(join(tree, "SKILL.md"), data);
        break;
      }
    }
  } catch (err) {
    discard();
    throw err;
  }
  return { dir, tree, skipped, discard };
}

/** A short label for messages: the folder name or the URL. */
export const sourceLabel = (src: SkillSource): string =>
  src.kind === "local" ? basename(src.location) : `${src.location}${src.ref ? `#${src.ref}` : ""}`;
