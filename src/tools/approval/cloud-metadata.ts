import type { Command } from "./commands.js";

/**
 * Cloud instance-metadata endpoints hand out the machine's cloud credentials to anything that asks
 * from inside the instance. Addresses are compared after normalising the spellings an IPv4
 * address accepts (`2852039166`, `0xa9fea9fe`, `0251.0376.0251.0376`, `::ffff:169.254.169.254`).
 */

/** AWS/Azure/GCP/Oracle/DigitalOcean, AWS ECS task credentials, Alibaba Cloud. */
const METADATA_IPV4 = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200"]);
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog"]);
const METADATA_IPV6 = new Set(["fd00:ec2::254"]);

/** Programs that open a connection to a host named in their arguments. */
const CLIENTS =
  /^(?:curl|wget|wget2|http|https|xh|xhs|httpie|aria2c|lwp-request|GET|HEAD|POST|fetch|nc|ncat|netcat|socat|telnet|openssl|links|lynx|w3m|elinks)$/;

/** A dotted or single-number IPv4 address in any base inet_aton accepts, as `a.b.c.d`. */
export function ipv4(text: string): string | undefined {
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]+$/i.test(p)) n = Number.parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) n = Number.parseInt(p, 8);
    else if (/^[1-9]\d*$/.test(p)) n = Number(p);
    else return undefined;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 2 ** (8 * (4 - nums.length))) return undefined;
  let value = last;
  nums.forEach((n, i) => {
    value += n * 2 ** (8 * (3 - i));
  });
  return [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256).join(".");
}

/** True when `host` (a name, an IPv4 in any spelling, or an IPv6 with or without brackets) is a metadata endpoint. */
export function isMetadataHost(host: string): boolean {
  const h = host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[|\]$/g, "");
  if (METADATA_NAMES.has(h) || METADATA_IPV6.has(h)) return true;
  const mapped = /^::ffff:(.+)$/.exec(h);
  if (mapped) {
    const tail = mapped[1]!;
    const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(tail);
    const v4 = hex ? ipv4(`0x${hex[1]}${hex[2]!.padStart(4, "0")}`) : ipv4(tail);
    return v4 !== undefined && METADATA_IPV4.has(v4);
  }
  const v4 = ipv4(h);
  return v4 !== undefined && METADATA_IPV4.has(v4);
}

/** Hosts an argument may name: a URL's host, `host:port`, and each `:`/`,`-separated field (`--resolve x:80:IP`). */
export function hostsIn(arg: string): string[] {
  const out: string[] = [];
  const url = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^@/?#\s]*@)?(\[[^\]\s]*\]|[^/:?#\s[]+)/i.exec(arg);
  if (url) out.push(url[1]!);
  for (const v6 of arg.matchAll(/\[([0-9a-f:.]+)\]/gi)) out.push(v6[1]!);
  for (const field of arg.split(/[:,=\s]/)) if (field !== "") out.push(field.replace(/\/.*$/, ""));
  return out;
}

/** The short name `metadata` only counts with GCP's path, where nothing else would answer. */
const gcpShortName = (arg: string): boolean =>
  /^(?:https?:\/\/)?metadata(?::\d+)?\/computeMetadata\b/i.test(arg);

/** Any argument names a metadata endpoint. */
export const namesMetadata = (args: readonly string[]): boolean =>
  args.some((a) => gcpShortName(a) || hostsIn(a).some(isMetadataHost));

/** A network client pointed at a metadata endpoint. */
export const isMetadataFetch = (c: Command): boolean => CLIENTS.test(c.name) && namesMetadata(c.args);
