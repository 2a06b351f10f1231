import { readlinkSync } from "node:fs";

/**
 * The host's time-zone name exactly as `Intl.DateTimeFormat().resolvedOptions().timeZone` gives it,
 * without paying for that call where it can be avoided: building a DateTimeFormat loads the default
 * locale's calendar data (~25 ms and ~9 MB, once per process), while the prompt only needs the name.
 *
 * ICU takes the zone from TZ when set (a leading ':' ignored), else from the /etc/localtime link
 * target after "/zoneinfo/". A name ICU lists as canonical (`Intl.supportedValuesOf`, a cheap table
 * read) resolves to itself; UTC's two spellings resolve to "UTC". Anything else (aliases such as
 * Asia/Kolkata, POSIX strings, a copied /etc/localtime) is answered by Intl itself.
 */
export function hostTimeZone(): string {
  const tz = process.env.TZ;
  const key = tz ?? "\0unset";
  let zone = cache.get(key);
  if (zone === undefined) {
    zone = fromCandidate(candidateName(tz)) ?? String(Intl.DateTimeFormat().resolvedOptions().timeZone);
    cache.set(key, zone);
  }
  return zone;
}

/** Per TZ value: the answer never changes while a process runs with the same TZ. */
const cache = new Map<string, string>();

const LOCALTIME = "/etc/localtime";
const ZONEINFO = "/zoneinfo/";

/** The zone name ICU would start from, or undefined when it cannot be read cheaply. */
function candidateName(tz: string | undefined): string | undefined {
  if (tz !== undefined) return tz.startsWith(":") ? tz.slice(1) : tz;
  try {
    const target = readlinkSync(LOCALTIME);
    const at = target.indexOf(ZONEINFO);
    return at < 0 ? undefined : target.slice(at + ZONEINFO.length);
  } catch {
    return undefined; // not a symlink (a copied zone file) or no /etc/localtime at all
  }
}

let canonical: ReadonlySet<string> | undefined;

/** The name Intl would report for this candidate, when that is certain without asking it. */
function fromCandidate(name: string | undefined): string | undefined {
  if (!name) return undefined;
  if (name === "UTC" || name === "Etc/UTC") return "UTC";
  canonical ??= new Set(Intl.supportedValuesOf("timeZone"));
  return canonical.has(name) ? name : undefined;
}
