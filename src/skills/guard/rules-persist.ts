import { HOME, NET, type Rule } from "./rule.js";
import type { FindingSeverity } from "./types.js";

/**
 * Changes that outlive the task: scheduled jobs, shell start-up files, SSH keys, services,
 * sudo rights, and the agent's own configuration, memory and skills.
 */

const RE = (source: string, flags = "i"): RegExp => new RegExp(source, flags);

/** Writing to a path: redirection, tee, sed -i, cp/mv/ln/install onto it, or a write call in code. */
const WRITE = String.raw`(?:>>?\s*["']?|\btee\s+(?:-a\s+)?["']?|\bsed\s+-i\S*\s[^\n]{0,160}?|\b(?:cp|mv|install|ln\s+-\w+)\s+(?:-\S+\s+)*\S+\s+["']?|\b(?:open|writeFile(?:Sync)?|appendFile(?:Sync)?|write_text|Add-Content|Set-Content|Out-File)\s*\(?\s*[^\n]{0,80}?)`;
const RC_FILE = String.raw`(?:(?:${HOME}[/\\"', +]{1,4})?\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|inputrc)\b|\.config/fish/config\.fish|/etc/(?:profile|bash\.bashrc|zsh/zshrc|environment)\b|/etc/profile\.d/|\$PROFILE\b)`;
/** What makes a start-up line an attack rather than a PATH tweak. */
const HOSTILE = RE(
  String.raw`${NET}|\bbase64\b|\\x[0-9a-f]{2}|/dev/tcp|\balias\s+(?:sudo|ls|cd|git|ssh|cat|su|passwd)=|\bpython[\d.]*\s+-c\b|\bnohup\b|(?:^|[^&>])&\s*(?:disown\s*)?(?:["']|$)`,
);
/** What a harmless start-up line looks like: PATH and variables, a tool's init hook, sourcing a file. */
const ROUTINE = RE(
  String.raw`["']?\s*(?:export\s+[A-Z_][A-Z0-9_]*=|eval\s+["']?\$\(\s*[\w-]+\s+(?:init|shellenv|activate|env)\b|(?:source|\.)\s+["']?(?:~|\$HOME|\$\{HOME\})/|PATH=)`,
);

function rcGrade(segment: string): FindingSeverity {
  if (HOSTILE.test(segment)) return "critical";
  return ROUTINE.test(segment) ? "medium" : "high";
}

const withNetwork =
  (base: FindingSeverity) =>
  (segment: string): FindingSeverity =>
    RE(NET).test(segment) || /\bbase64\s+-{1,2}d|\/dev\/tcp/i.test(segment) ? "critical" : base;

export const PERSIST_RULES: readonly Rule[] = [
  {
    id: "persist_shell_rc",
    severity: "high",
    category: "persistence",
    description: "writes to a shell start-up file (runs in every new shell)",
    re: RE(`${WRITE}${RC_FILE}`),
    grade: rcGrade,
  },
  {
    id: "persist_cron",
    severity: "high",
    category: "persistence",
    description: "installs a scheduled job (crontab, cron folders, schtasks)",
    re: RE(
      String.raw`\|\s*crontab\b|\bcrontab\s+(?:-u\s+\S+\s+)?(?:-(?=\s|$)|(?!-)[\w~$-]*[./][\w./-]*[\w/](?=\s|$))|(?:>>?|\btee\s+(?:-a\s+)?|\b(?:cp|mv)\s+\S+\s+)\s*/(?:etc/cron(?:tab|\.d|\.daily|\.hourly|\.weekly|\.monthly)|var/spool/cron)|@reboot\b|\bschtasks(?:\.exe)?\s+/create\b`,
    ),
    grade: withNetwork("high"),
  },
  {
    id: "persist_cron_edit",
    severity: "medium",
    category: "persistence",
    description: "edits the crontab",
    re: /\bcrontab\s+(?:-u\s+\S+\s+)?-e\b/i,
  },
  {
    id: "persist_ssh_keys",
    severity: "critical",
    category: "persistence",
    description: "adds a key to SSH authorized_keys (a way back into the machine)",
    re: RE(
      String.raw`(?:>>?\s*|\btee\s+(?:-a\s+)?|\b(?:cp|mv|install)\s+\S+\s+)["']?[^\s;&|"']{0,80}authorized_keys\b|authorized_keys[^\n]{0,60}["'](?:a\+?|w\+?)["']|(?:appendFile|writeFile)(?:Sync)?\([^\n]{0,80}authorized_keys|\bPermitRootLogin\s+yes\b`,
    ),
  },
  {
    id: "ssh_keys_reference",
    severity: "medium",
    category: "persistence",
    description: "mentions SSH authorized_keys",
    re: /authorized_keys/i,
  },
  {
    id: "persist_service_unit",
    severity: "high",
    category: "persistence",
    description: "installs a systemd unit",
    re: RE(
      String.raw`${WRITE}[^\s"']{0,40}?(?:/etc/systemd/system|/lib/systemd/system|/usr/lib/systemd/\w+|\.config/systemd/user)/[\w@.-]+\.(?:service|timer|path|socket)\b`,
    ),
    grade: withNetwork("high"),
  },
  {
    id: "persist_service_fetch",
    severity: "critical",
    category: "persistence",
    description: "a service or timer whose command downloads or decodes code",
    re: RE(
      String.raw`\bExec(?:Start|StartPre|StartPost|Stop)=[^\n]{0,200}?(?:${NET}|/dev/tcp|base64\s+-{1,2}d)`,
    ),
  },
  {
    id: "persist_launchd",
    severity: "high",
    category: "persistence",
    description: "installs a macOS launch agent or daemon",
    re: RE(
      String.raw`${WRITE}[^\n]{0,80}?Library/Launch(?:Agents|Daemons)/|\blaunchctl\s+(?:load|bootstrap|submit)\b`,
    ),
    grade: withNetwork("high"),
  },
  {
    id: "persist_windows_run_key",
    severity: "high",
    category: "persistence",
    description: "adds a program to the Windows Run key",
    re: /\breg(?:\.exe)?\s+add\s+["']?HK(?:CU|LM|EY_CURRENT_USER|EY_LOCAL_MACHINE)\\Software\\Microsoft\\Windows\\CurrentVersion\\Run/i,
  },
  {
    id: "persist_sudo_rights",
    severity: "critical",
    category: "persistence",
    description: "grants sudo or root rights",
    re: RE(
      String.raw`\bNOPASSWD\s*:\s*ALL\b|(?:>>?|\btee\s+(?:-a\s+)?)\s*/etc/sudoers(?:\.d/\S+)?|\bvisudo\b|\busermod\s+(?:-\w+\s+)*-a?G\s+(?:sudo|wheel|admin|root)\b|\buseradd\b[^\n]{0,80}\s-u\s*0\b|\bchmod\s+(?:[ug]\+s|[2467][0-7]{3})\s+\S*(?:bash|sh|python\S*)\b`,
    ),
  },
  {
    id: "persist_global_git_hooks",
    severity: "high",
    category: "persistence",
    description: "points every repository's git hooks at another folder",
    re: /\bgit\s+config\s+--(?:global|system)\s+core\.hooksPath\b/i,
  },
  {
    id: "persist_agent_files",
    severity: "critical",
    category: "persistence",
    description: "rewrites the agent's own configuration, secrets, memory or skills",
    re: RE(
      String.raw`${WRITE}(?:~|\$HOME|\$\{HOME\}|\$HERMES_HOME|\$\{HERMES_HOME\}|os\.homedir\(\)|expanduser\(\s*["']~)[^\s"']{0,20}?(?:/\.hermes)?/(?:config\.yaml|\.env|SOUL\.md|auth\.json|memories/|MEMORY\.md|USER\.md|skills/)`,
    ),
  },
  {
    id: "persist_agent_instructions",
    severity: "high",
    category: "persistence",
    description: "writes into files other agents read as instructions (AGENTS.md, CLAUDE.md, .cursorrules)",
    re: RE(
      String.raw`(?:>>\s*|\btee\s+-a\s+|\bsed\s+-i\S*\s[^\n]{0,120}?)["']?[^\s"';&|]{0,60}?(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|\.github/copilot-instructions\.md)\b`,
    ),
  },
];
