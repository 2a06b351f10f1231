import { homedir } from "node:os";
import { scanForInjection } from "../agent/prompt/injection.js";
import type {
  FindingCategory,
  FindingSeverity,
  GuardScreens,
  ScreenedCommand,
} from "../skills/guard/types.js";
import { detectCommand } from "../tools/approval/detect.js";
import { loadShellGrammar } from "../tools/approval/grammar.js";
import type { PatternClass, PatternMatch } from "../tools/approval/types.js";

/**
 * The skill scan's view of two screens that live elsewhere: the terminal's command rules (for
 * shell snippets in a skill) and the context-file injection scan (for its markdown). A command
 * that needs approval in a chat is not always an attack in a skill's instructions (`npm publish`
 * in a release skill), so only the rules that mean "attack" raise the skill's verdict.
 */

/** Terminal rules judged differently for a skill; `null` leaves the line to the skill scan's own rule. */
const SEVERITY_BY_KEY: Record<string, FindingSeverity | null> = {
  // The skill scan tells a PATH line in ~/.bashrc from a hostile one.
  login_files: null,
  crontab_replace: null,
  power_off: "high",
  sudo_password: "high",
  ssh_authorized_keys: "critical",
  ssh_key_overwrite: "critical",
  sudoers: "critical",
  home_credentials_write: "critical",
  setuid_bit: "critical",
  cloud_metadata: "critical",
  reverse_shell: "critical",
  shell_history_wipe: "high",
  user_accounts: "high",
  firewall_flush: "high",
  selinux_off: "high",
  kernel_change: "high",
  chmod_home_secrets: "high",
  kill_all: "high",
  kill_every_process: "high",
  hermes_files: "critical",
  hermes_settings: "critical",
  // Caution, not a refusal: a skill's documented `source .env && curl -H "Bearer $KEY"` reads the same way.
  credential_exfiltration: "high",
};

const CATEGORY_BY_CLASS: Partial<Record<PatternClass, FindingCategory>> = {
  remote_code: "remote_code",
  scheduler: "persistence",
  accounts: "persistence",
  security: "persistence",
  history: "destructive",
  exfiltration: "exfiltration",
};

function screened(match: PatternMatch, hardline: boolean): ScreenedCommand | undefined {
  const mapped = SEVERITY_BY_KEY[match.key];
  if (mapped === null) return undefined;
  const severity: FindingSeverity =
    mapped ?? (hardline || match.class === "remote_code" ? "critical" : "low");
  return {
    rule: `cmd_${match.key}`,
    description: match.description,
    severity,
    category: CATEGORY_BY_CLASS[match.class] ?? "destructive",
  };
}

/** The screens, synchronous; the shell grammar is used once `loadSkillScreens` has loaded it. */
export function skillScreens(): GuardScreens {
  const home = homedir();
  return {
    command: (line) => {
      const d = detectCommand(line, { home });
      const out: ScreenedCommand[] = [];
      for (const m of d.hardline) {
        const s = screened(m, true);
        if (s) out.push(s);
      }
      for (const m of d.dangerous) {
        const s = screened(m, false);
        if (s) out.push(s);
      }
      return out;
    },
    prose: (text) => scanForInjection(text),
  };
}

/** The screens with the bash grammar loaded (a more exact reading of shell snippets). */
export async function loadSkillScreens(): Promise<GuardScreens> {
  await loadShellGrammar();
  return skillScreens();
}
