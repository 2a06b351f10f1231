/**
 * `security.website_blocklist` and `security.allow_private_urls` turned into guard options.
 * A rule is a host (`example.com`, also matching its subdomains), a `*.example.com` pattern
 * (subdomains only), or a URL whose host is taken; `#` starts a comment in shared files.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";

export interface WebsiteBlocklistSettings {
  enabled: boolean;
  domains: string[];
  /** Files of rules, one a line; relative paths are under HERMES_HOME. */
  shared_files: string[];
}

export interface WebSecuritySettings {
  allow_private_urls?: boolean;
  website_blocklist?: Partial<WebsiteBlocklistSettings>;
}

/** A rule reduced to a lower-case host pattern, or undefined for blanks and comments. */
export function normalizeRule(rule: string): string | undefined {
  let value = rule.trim().toLowerCase();
  if (!value || value.startsWith("#")) return undefined;
  if (value.includes("://") || /[:@]/.test(value.split("/")[0] ?? "")) {
    try {
      value = new URL(value.includes("://") ? value : `http://${value}`).hostname;
    } catch {
      return undefined;
    }
  }
  value = value.split("/")[0]?.replace(/\.$/, "") ?? "";
  // "www.example.com" is how people write a site; they mean the whole site.
  if (value.startsWith("www.")) value = value.slice(4);
  return value || undefined;
}

/** The first rule matching `host` (already normalised), or undefined. */
export function matchBlocklist(host: string, rules: readonly string[]): string | undefined {
  for (const rule of rules) {
    if (rule.startsWith("*.")) {
      if (host.endsWith(rule.slice(1)) && host.length > rule.length - 1) return rule;
    } else if (host === rule || host.endsWith(`.${rule}`)) {
      return rule;
    }
  }
  return undefined;
}

/** Guard options from the `security` config block. Unreadable shared files are skipped, not fatal. */
export function guardOptionsFromSecurity(
  security: WebSecuritySettings | undefined,
  home?: string,
): { allowPrivate: boolean; blocklist: string[] } {
  const list = security?.website_blocklist;
  const rules: string[] = [];
  if (list?.enabled !== false) {
    for (const r of list?.domains ?? []) {
      const n = typeof r === "string" ? normalizeRule(r) : undefined;
      if (n) rules.push(n);
    }
    for (const file of list?.shared_files ?? []) {
      const path = isAbsolute(file) || !home ? file : join(home, file);
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split(/\r?\n/)) {
        const n = normalizeRule(line);
        if (n) rules.push(n);
      }
    }
  }
  return { allowPrivate: security?.allow_private_urls === true, blocklist: [...new Set(rules)] };
}
