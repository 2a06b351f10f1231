import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadSkillScreens } from "../../src/runtime/skill-screens.js";
import { decideInstall } from "../../src/skills/guard/policy.js";
import { scanSkillDir } from "../../src/skills/guard/scan.js";
import type { GuardScreens } from "../../src/skills/guard/types.js";
import { bundledSkillDirs } from "./install-support.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
const MALICIOUS = join(FIXTURES, "skills-malicious");
const ORDINARY = join(FIXTURES, "skills-ordinary");
const _BUNDLED = join(import.meta.dirname, "..", "..", "skills");

/** The rule of the skill scan itself (screens off) that must catch each malicious skill. */
const EXPECTED: Record<string, string> = {
  "destroy-disable-firewall": "destroy_disable_protection",
  "destroy-disk": "destroy_disk",
  "destroy-fork-bomb": "destroy_fork_bomb",
  "destroy-history": "destroy_history_wipe",
  "destroy-kill-all": "destroy_kill_everything",
  "destroy-mkfs": "destroy_disk",
  "destroy-passwd": "destroy_system_accounts",
  "destroy-python-rmtree": "destroy_code_rmtree",
  "destroy-rm-home": "destroy_recursive_delete",
  "destroy-rm-root-flags-after": "destroy_recursive_delete",
  "exfil-body-secret": "exfil_secret_in_body",
  "exfil-catcher": "exfil_catcher_host",
  "exfil-code-secret": "exfil_code_secret_send",
  "exfil-credential-read": "exfil_credential_read",
  "exfil-dns": "exfil_dns",
  "exfil-env-dump": "exfil_env_dump",
  "exfil-hermes-env": "exfil_credential_read",
  "exfil-markdown-image": "exfil_markdown_image",
  "exfil-node-env": "exfil_env_dump",
  "exfil-prose-instruction": "exfil_instruction",
  "exfil-python-env": "exfil_env_dump",
  "exfil-upload-ssh-key": "exfil_secret_in_body",
  "exfil-url-secret": "exfil_secret_in_url",
  "inject-fake-system": "inject_fake_system_turn",
  "inject-hidden-comment": "inject_html_comment",
  "inject-hidden-div": "inject_hidden_html",
  "inject-ignore": "inject_override_instructions",
  "inject-invisible-unicode": "invisible_unicode",
  "inject-role": "inject_role_takeover",
  "inject-silent-action": "inject_hide_from_user",
  "obf-base64-pipe": "obf_decode_exec",
  "obf-base64-python": "obf_decode_exec",
  "obf-double-base64": "hidden_payload",
  "obf-hex-escapes": "hidden_payload",
  "obf-ifs": "remote_pipe_shell",
  "obf-js-charcode": "obf_decode_exec",
  "obf-long-blob": "obf_long_base64",
  "obf-powershell-enc": "obf_decode_exec",
  "obf-quote-splicing": "remote_pipe_shell",
  "obf-reversed": "hidden_payload",
  "obf-rot13": "hidden_payload",
  "persist-agent-config": "persist_agent_files",
  "persist-agent-instructions": "persist_agent_instructions",
  "persist-bashrc-alias": "persist_shell_rc",
  "persist-cron": "persist_cron",
  "persist-cron-beacon": "persist_cron",
  "persist-git-hooks": "persist_global_git_hooks",
  "persist-launchd": "persist_launchd",
  "persist-memory-write": "persist_agent_files",
  "persist-ssh-key": "persist_ssh_keys",
  "persist-sudoers": "persist_sudo_rights",
  "persist-systemd": "persist_service_fetch",
  "persist-windows-run": "persist_windows_run_key",
  "persist-zshrc-background": "persist_shell_rc",
  "remote-curl-sh": "remote_pipe_shell",
  "remote-download-run": "remote_download_run",
  "remote-powershell": "remote_substitution_exec",
  "remote-process-substitution": "remote_substitution_exec",
  "remote-python-exec": "remote_code_exec",
  "remote-wget-python": "remote_pipe_shell",
  "reverse-shell": "reverse_shell",
  "reverse-shell-python": "reverse_shell",
  "struct-binary": "binary_executable",
};

const dirs = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

let screens: GuardScreens;
beforeAll(async () => {
  screens = await loadSkillScreens();
});

describe("malicious corpus", () => {
  const names = dirs(MALICIOUS);

  it("holds at least 40 skills, each with an expected rule", () => {
    expect(names.length).toBeGreaterThanOrEqual(40);
    expect(Object.keys(EXPECTED).sort()).toEqual(names);
  });

  it.each(names)("%s is caught by the scan's own rules and refused for a community source", (name) => {
    const result = scanSkillDir(join(MALICIOUS, name));
    expect(result.findings.map((f) => f.rule)).toContain(EXPECTED[name]);
    expect(result.verdict).not.toBe("safe");
    expect(decideInstall(result.verdict, "community").action).toBe("block");
    expect(decideInstall(result.verdict, "community", true).action).toBe(
      result.verdict === "dangerous" ? "block" : "allow",
    );
  });

  it.each(names)("%s stays refused with the command and prose screens added", (name) => {
    const result = scanSkillDir(join(MALICIOUS, name), { screens });
    expect(result.verdict).not.toBe("safe");
    // Each finding names a real file of the skill and, for text findings, a line that has text.
    for (const f of result.findings) {
      const path = join(MALICIOUS, name, f.file);
      expect(existsSync(path)).toBe(true);
      if (f.line > 0) expect(readFileSync(path, "utf8").split("\n")[f.line - 1]?.trim()).not.toBe("");
    }
  });
});

describe("ordinary corpus", () => {
  const bundled = bundledSkillDirs();
  const ordinary = dirs(ORDINARY).map((n) => join(ORDINARY, n));

  it("holds at least 40 skills besides the bundled ones", () => {
    expect(ordinary.length).toBeGreaterThanOrEqual(40);
  });

  it.each([...ordinary, ...bundled].map((d) => [d.slice(dirname(dirname(d)).length + 1), d]))(
    "%s passes as a community skill",
    (_label, dir) => {
      const result = scanSkillDir(dir, { screens });
      const serious = result.findings.filter((f) => f.severity === "critical" || f.severity === "high");
      expect(serious).toEqual([]);
      expect(result.verdict).toBe("safe");
      expect(decideInstall(result.verdict, "community").action).toBe("allow");
    },
  );
});
