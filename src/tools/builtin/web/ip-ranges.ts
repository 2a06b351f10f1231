/**
 * Address classes for the SSRF guard. Pure functions over IP literals: no DNS, no I/O.
 * IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are judged by
 * the IPv4 address they reach, so `[::ffff:127.0.0.1]` is as loopback as `127.0.0.1`.
 */
import { isIP } from "node:net";

/** `never`: fine to dial. `private`: refused unless private URLs are allowed. `always`: refused, whatever the config. */
export type AddressVerdict =
  | { block: "never" }
  | { block: "private"; label: string }
  | { block: "always"; label: string };

interface V4Range {
  base: number;
  bits: number;
  label: string;
  always?: boolean;
}

const v4 = (cidr: string, label: string, always = false): V4Range => {
  const [addr = "", bits = "32"] = cidr.split("/");
  return { base: v4ToInt(addr) ?? 0, bits: Number(bits), label, always };
};

// Cloud metadata endpoints come first so they win over the wider range they sit in. The tables are
// built on first use: parsing an IPv6 literal compiles Node's IPv6 pattern (~5 ms), which a run that
// never checks a URL should not pay at start-up.
const v4Ranges = (): readonly V4Range[] => [
  v4("100.100.100.200/32", "a cloud metadata address", true),
  v4("169.254.0.0/16", "a link-local (cloud metadata) address", true),
  v4("0.0.0.0/8", "an unspecified address"),
  v4("10.0.0.0/8", "a private address"),
  v4("100.64.0.0/10", "a carrier-grade NAT address"),
  v4("127.0.0.0/8", "a loopback address"),
  v4("172.16.0.0/12", "a private address"),
  v4("192.0.0.0/24", "an IETF protocol address"),
  v4("192.0.2.0/24", "a documentation address"),
  v4("192.168.0.0/16", "a private address"),
  v4("198.18.0.0/15", "a benchmarking address"),
  v4("198.51.100.0/24", "a documentation address"),
  v4("203.0.113.0/24", "a documentation address"),
  v4("224.0.0.0/4", "a multicast address"),
  v4("240.0.0.0/4", "a reserved address"),
];

interface V6Range {
  prefix: Uint8Array;
  bits: number;
  label: string;
  always?: boolean;
}

const v6 = (cidr: string, label: string, always = false): V6Range => {
  const [addr = "", bits = "128"] = cidr.split("/");
  return { prefix: v6ToBytes(addr) ?? new Uint8Array(16), bits: Number(bits), label, always };
};

const v6Ranges = (): readonly V6Range[] => [
  v6("fd00:ec2::254/128", "a cloud metadata address", true),
  v6("::/128", "an unspecified address"),
  v6("::1/128", "a loopback address"),
  v6("100::/64", "a discard-only address"),
  v6("2001:db8::/32", "a documentation address"),
  v6("fc00::/7", "a unique-local (private) address"),
  v6("fe80::/10", "a link-local address"),
  v6("fec0::/10", "a site-local address"),
  v6("ff00::/8", "a multicast address"),
];

let tables: { v4: readonly V4Range[]; v6: readonly V6Range[] } | undefined;
const ranges = (): { v4: readonly V4Range[]; v6: readonly V6Range[] } => {
  tables ??= { v4: v4Ranges(), v6: v6Ranges() };
  return tables;
};

/** Verdict for one IP literal (brackets and a `%zone` suffix are tolerated). Non-IPs are `always` blocked. */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return classifyV4(v4ToInt(bare) ?? 0);
  if (family === 6) {
    const bytes = v6ToBytes(bare);
    if (!bytes) return { block: "always", label: "an unparseable address" };
    const embedded = embeddedV4(bytes);
    if (embedded !== undefined) {
      const inner = classifyV4(embedded);
      return inner.block === "never" ? inner : { ...inner, label: `${inner.label} (IPv4 inside IPv6)` };
    }
    for (const r of ranges().v6) {
      if (prefixMatches(bytes, r.prefix, r.bits))
        return { block: r.always ? "always" : "private", label: r.label };
    }
    return { block: "never" };
  }
  return { block: "always", label: "not an IP address" };
}

function classifyV4(n: number): AddressVerdict {
  for (const r of ranges().v4) {
    const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
    if ((n & mask) >>> 0 === (r.base & mask) >>> 0)
      return { block: r.always ? "always" : "private", label: r.label };
  }
  return { block: "never" };
}

/** The IPv4 address an IPv6 address tunnels to, if it is one of the embedding forms. */
function embeddedV4(b: Uint8Array): number | undefined {
  const tail = (((b[12] ?? 0) << 24) | ((b[13] ?? 0) << 16) | ((b[14] ?? 0) << 8) | (b[15] ?? 0)) >>> 0;
  const zeros = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (deprecated compatible; :: and ::1 are judged as IPv6).
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return tail;
  if (zeros(0, 12) && tail > 1) return tail;
  // 64:ff9b::/96 NAT64.
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return tail;
  // 2002::/16 6to4: the IPv4 address follows the prefix.
  if (b[0] === 0x20 && b[1] === 0x02)
    return (((b[2] ?? 0) << 24) | ((b[3] ?? 0) << 16) | ((b[4] ?? 0) << 8) | (b[5] ?? 0)) >>> 0;
  // 2001:0::/32 Teredo: the client's IPv4 address is stored inverted in the last 32 bits.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) return ~tail >>> 0;
  return undefined;
}

function prefixMatches(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  const full = Math.floor(bits / 8);
  for (let i = 0; i < full; i++) if (bytes[i] !== prefix[i]) return false;
  const rest = bits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[full] ?? 0) & mask) === ((prefix[full] ?? 0) & mask);
}

function v4ToInt(addr: string): number | undefined {
  const parts = addr.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    const v = Number(p);
    if (!/^\d{1,3}$/.test(p) || v > 255) return undefined;
    n = n * 256 + v;
  }
  return n >>> 0;
}

/** 16 bytes of an IPv6 literal (with `::` and a trailing dotted quad), or undefined. */
export function v6ToBytes(addr: string): Uint8Array | undefined {
  if (isIP(addr) !== 6) return undefined;
  let text = addr.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad?.[1]) {
    const n = v4ToInt(quad[1]);
    if (n === undefined) return undefined;
    text = `${text.slice(0, -quad[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(missing).fill("0"), ...tailGroups];
  if (groups.length !== 8) return undefined;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}
