import type { SegmentKind } from "./text.js";
import type { FindingCategory, FindingSeverity } from "./types.js";

/** One pattern of the scan. Every expression is bounded, so a scan stays linear in the text. */
export interface Rule {
  id: string;
  severity: FindingSeverity;
  category: FindingCategory;
  description: string;
  re: RegExp;
  /** Only segments of this kind (default: all). */
  kind?: SegmentKind;
  /** A segment that also matches this is not a hit (a local destination, a public key). */
  unless?: RegExp;
  /** A severity that depends on the segment (a fetch inside a crontab line is worse than the line). */
  grade?: (segment: string) => FindingSeverity;
  /** Prose that quotes the phrase as something to refuse ("phrases such as '…'") is not a hit. */
  quotable?: boolean;
}

/** Text just before a match that makes it a quotation of what to refuse rather than an order. */
const QUOTING =
  /\b(?:such\s+as|like|e\.g\.,?|for\s+example,?|phrases?|strings?|wording|tells?\s+you\s+to|asks?\s+you\s+to)\s*[:,]?\s*["“'`]?\s*$/i;

/** Whether the match at `index` of `text` quotes the phrase ("phrases such as '…'"). */
export const isQuoted = (text: string, index: number): boolean =>
  QUOTING.test(text.slice(Math.max(0, index - 80), index));

/** Network clients and calls, shell and code. */
export const NET = String.raw`(?:\b(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|sftp|rsync|ftp|aria2c|xh|httpie|invoke-webrequest|invoke-restmethod|iwr|irm)\b|\bhttps?\s+(?:post|put|get)\b|\b(?:requests|httpx|aiohttp|axios|got|superagent|urllib\d?(?:\.request)?)\.\w+\s*\(|\burlopen\s*\(|\bfetch\s*\(|\bXMLHttpRequest\b|\bsendBeacon\s*\(|\bsmtplib\b|\bsocket\.(?:connect|send)\b)`;

/** A variable whose name says it holds a secret: $API_KEY, ${GITHUB_TOKEN}, $DB_PASSWORD. */
export const SECRET_VAR = String.raw`\$\{?[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|COOKIE|SESSION)S?\b`;

/** A secret read in code: os.environ["X_KEY"], process.env.X_TOKEN, os.getenv("X_SECRET"). */
export const SECRET_CODE = String.raw`(?:os\.environ(?:\.get)?\s*[[(]\s*["'][A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)|os\.getenv\s*\(\s*["'][A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)|process\.env(?:\.|\[\s*["'])[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?))`;

/** The whole environment, as one value. */
export const WHOLE_ENV = String.raw`(?:\bdict\s*\(\s*os\.environ\s*\)|\bos\.environ\.copy\s*\(|\bstr\s*\(\s*os\.environ\s*\)|json\.dumps\s*\(\s*(?:dict\s*\(\s*)?os\.environ|JSON\.stringify\s*\(\s*process\.env\b|Object\.entries\s*\(\s*process\.env\s*\)|\$\((?:env|printenv|set|export\s+-p)\)|\x60(?:env|printenv)\x60)`;

/** A home folder, however it is spelled. */
export const HOME = String.raw`(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/root|/home/[\w.-]+|/Users/[\w.-]+|os\.homedir\(\)|expanduser\(\s*["']~|Path\.home\(\))`;

/** Credential stores under a home. */
export const CREDENTIAL_PATHS = String.raw`(?:\.ssh[/\\"', ]{1,6}(?:id_\w+|[\w.-]*_key)\b(?!\.pub)|\.aws[/\\"', ]{1,6}credentials|\.docker[/\\"', ]{1,6}config\.json|\.kube[/\\"', ]{1,6}config\b|\.netrc\b|\.git-credentials\b|\.pgpass\b|\.npmrc\b|\.pypirc\b|\.gnupg\b|\.config[/\\]gh[/\\]hosts\.yml|\.hermes[/\\"', ]{1,6}(?:\.env|auth\.json)|\.password-store\b|Library/Keychains|\.mozilla/firefox|Google/Chrome/(?:Default|User Data)|\.config/google-chrome)`;

/** Loopback destinations: data sent there stays on the machine. */
export const LOOPBACK = String.raw`https?://(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)\b`;

/** Shells and interpreters that run what they read. */
export const RUNNER = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:(?:ba|z|da|k|c|tc|fi|a)?sh|pwsh|powershell|iex|invoke-expression|source)\b`;
