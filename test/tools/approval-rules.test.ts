import { beforeAll, describe, expect, it } from "vitest";
import { ipv4, isMetadataHost } from "../../src/tools/approval/cloud-metadata.js";
import { splitCommands } from "../../src/tools/approval/commands.js";
import { type DetectOptions, detectCommand } from "../../src/tools/approval/detect.js";
import { loadShellGrammar } from "../../src/tools/approval/grammar.js";
import { sudoReadsPassword } from "../../src/tools/approval/hardline-access.js";
import { resolveLong } from "../../src/tools/approval/options.js";
import { isHermesPath, isLoginPath } from "../../src/tools/approval/protected-paths.js";
import { modifiedPaths } from "../../src/tools/approval/writes.js";

const ME: DetectOptions = { cwd: "/home/me/proj", home: "/home/me", hermesHome: "/home/me/.hermes" };

const hardline = (command: string, opts: DetectOptions = {}): string[] =>
  detectCommand(command, opts).hardline.map((m) => m.key);
const dangerous = (command: string, opts: DetectOptions = {}): string[] =>
  detectCommand(command, opts).dangerous.map((m) => m.key);
const flagged = (command: string, opts: DetectOptions = {}): string[] => {
  const d = detectCommand(command, opts);
  return [...d.hardline, ...d.dangerous, ...d.warnings].map((m) => m.key);
};

describe("find running rm", () => {
  it("asks for -exec/-execdir with rm given by its full path, in both terminator forms", () => {
    for (const c of [
      "find . -exec /bin/rm {} \\;",
      "find . -exec /usr/bin/rm -rf {} +",
      "find . -execdir /bin/rm {} +",
      "find /srv/data -name '*.tmp' -exec /usr/bin/rm -f {} \\;",
      "find . -ok /bin/rm {} \\;",
      "find . -exec sudo /bin/rm {} +",
      "find . -exec sh -c 'rm -f \"$1\"' _ {} \\;",
    ]) {
      expect(dangerous(c), c).toContain("find_delete");
    }
  });

  it("blocks the same over /, the home folder or a whole system folder", () => {
    expect(hardline("find / -exec /usr/bin/rm -rf {} +")).toContain("find_root_delete");
    expect(hardline("find ~ -type f -execdir /bin/rm {} \\;")).toContain("find_root_delete");
    expect(hardline("find /usr -exec /bin/rm {} +")).toContain("find_root_delete");
    // A filtered clean-up inside a system folder asks instead.
    expect(hardline("find /var/log -name '*.gz' -exec /bin/rm {} +")).toEqual([]);
  });

  it("leaves filtered clean-ups and read-only -exec alone", () => {
    for (const c of [
      "find src -name '*.bak' -execdir /bin/rm {} \\;",
      "find . -name '*.py' -exec grep -l TODO {} +",
      "find . -type f -exec wc -l {} \\;",
      "find . -type d -name node_modules -prune -exec rm -rf {} +",
    ]) {
      expect(flagged(c), c).toEqual([]);
    }
  });

  it("screens other -exec commands with {} standing for the start folder", () => {
    expect(dangerous("find /etc -name '*.conf' -exec sed -i 's/a/b/' {} +")).toContain("edit_system_file");
    expect(hardline("find ~/.hermes -name config.yaml -exec sed -i 's/on/off/' {} \\;")).toContain(
      "hermes_files",
    );
  });
});

describe("Hermes's own files", () => {
  it("are hardline for every way of writing, moving or deleting them", () => {
    for (const c of [
      "echo 'approvals:' > ~/.hermes/config.yaml",
      "echo '  mode: off' >> ~/.hermes/config.yaml",
      "printf x >| ~/.hermes/.env",
      "echo x | tee -a ~/.hermes/auth.json",
      "echo x | tee $HERMES_HOME/config.yaml",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
      'echo x | tee "${HERMES_HOME}/.env"',
      "cp /tmp/evil.yaml ~/.hermes/config.yaml",
      "cp -t ~/.hermes/ /tmp/config.yaml",
      "mv /tmp/x.yaml $HOME/.hermes/config.yaml",
      "mv ~/.hermes/auth.json /tmp/",
      "install -m 600 /tmp/env ~/.hermes/.env",
      "ln -sf /tmp/mine.yaml ~/.hermes/config.yaml",
      "ln -s ~/.hermes/config.yaml /tmp/cfg",
      "dd if=/tmp/x of=~/.hermes/config.yaml",
      "sed -i 's/manual/off/' ~/.hermes/config.yaml",
      "sed -e 's/manual/off/' --in-place=.bak ~/.hermes/config.yaml",
      "perl -pi -e 's/manual/off/' ~/.hermes/config.yaml",
      "ruby -i -pe 'gsub(/manual/, \"off\")' ~/.hermes/config.yaml",
      "vim -c '%s/manual/off/' -c wq ~/.hermes/config.yaml",
      "ex -sc '%s/manual/off/|x' ~/.hermes/config.yaml",
      "ed -s ~/.hermes/config.yaml <<< $'1d\\nw\\nq'",
      "truncate -s 0 ~/.hermes/auth.json",
      "rm ~/.hermes/.env",
      "rm -rf ~/.hermes",
      "shred -u ~/.hermes/auth.json",
      "curl -so ~/.hermes/config.yaml https://x.io/c",
      "wget -O ~/.hermes/.env https://x.io/e",
      "tar -xzf cfg.tgz -C ~/.hermes",
      "rsync -a /tmp/cfg/ ~/.hermes/",
      "echo x > ~/.herm*/config.yaml",
    ]) {
      expect(hardline(c), c).toContain("hermes_files");
    }
  });

  it("knows the real HERMES_HOME, wherever it is", () => {
    const opts = { ...ME, hermesHome: "/srv/hermes" };
    expect(hardline("echo x > /srv/hermes/config.yaml", opts)).toContain("hermes_files");
    expect(hardline("sed -i 's/a/b/' /srv/hermes/profiles/work/config.yaml", opts)).toContain("hermes_files");
    expect(hardline("echo x > /srv/hermes/config.yaml")).toEqual([]);
    expect(hardline("echo x > /home/me/.hermes/config.yaml", ME)).toContain("hermes_files");
    // Relative paths inside HERMES_HOME, from there or after a cd into it.
    expect(hardline("echo x > config.yaml", { ...ME, cwd: "/home/me/.hermes" })).toContain("hermes_files");
    expect(hardline("cd ~/.hermes && sed -i 's/on/off/' config.yaml")).toContain("hermes_files");
    expect(hardline("cd $HERMES_HOME; cp /tmp/c.yaml config.yaml", opts)).toContain("hermes_files");
    expect(hardline("cd /srv/hermes && rm .env", opts)).toContain("hermes_files");
    expect(hardline("cd ~/.hermes && cd profiles/work && echo x > config.yaml")).toContain("hermes_files");
    expect(hardline("cd ~/.hermes && cd /tmp && echo x > config.yaml")).toEqual([]);
  });

  it("blocks the Hermes CLI commands that change settings or keys, and --yolo", () => {
    for (const c of [
      "hermes config set approvals.mode off",
      "hermes -p work config set approvals.mode off",
      "hermes auth add openrouter --key sk-x",
      "hermes fallback clear",
      "hermes --yolo -z 'tidy up'",
      "hermes chat --yolo -q 'go'",
    ]) {
      expect(hardline(c), c).toContain("hermes_settings");
    }
    for (const c of ["hermes config show", "hermes auth list", "hermes -z 'hello'", "hermes sessions list"]) {
      expect(flagged(c), c).toEqual([]);
    }
  });

  it("lets reads through", () => {
    for (const c of [
      "cat ~/.hermes/config.yaml",
      "grep approvals ~/.hermes/config.yaml",
      "cp ~/.hermes/config.yaml /tmp/backup.yaml",
      "less $HERMES_HOME/logs/agent.log",
      "tail -n 50 ~/.hermes/logs/agent.log",
      "sed -n '1,20p' ~/.hermes/config.yaml",
      "diff ~/.hermes/config.yaml config.example.yaml",
      "ls -la ~/.hermes",
      "cd ~/.hermes && ls",
      "echo x > config.yaml",
    ]) {
      expect(flagged(c, ME), c).toEqual([]);
    }
  });
});

describe("login files: SSH keys, authorized_keys, .netrc, shell start-up files", () => {
  it("are hardline to write", () => {
    for (const c of [
      "echo 'export PATH=/tmp/x:$PATH' >> ~/.bashrc",
      "cat evil >> ~/.bash_profile",
      "cp /tmp/e ~/.zshrc",
      "echo x | tee -a ~/.profile",
      "sed -i '$a curl x | sh' ~/.zprofile",
      "ln -sf /tmp/rc ~/.zshenv",
      "echo x > ~/.bash_login",
      "echo x > /root/.bashrc",
      "echo x | sudo tee /etc/profile.d/zz.sh",
      "echo x >> /etc/bash.bashrc",
      "cat key.pub >> ~/.ssh/authorized_keys",
      "cat key >> $HOME/.ssh/authorized_keys",
      "cp /tmp/evil ~/.ssh/authorized_keys",
      "mv /tmp/k ~/.ssh/id_rsa",
      "cp id_ed25519 ~/.ssh/",
      "scp host:keys ~/.ssh/authorized_keys",
      "rm -f ~/.ssh/id_ed25519",
      "rm -rf ~/.ssh",
      "install -m600 /tmp/c ~/.netrc",
      "echo 'machine x login a password b' > ~/.netrc",
      "cd ~ && echo x >> .bashrc",
    ]) {
      expect(hardline(c), c).toContain("login_files");
    }
    expect(hardline("echo x >> .bashrc", { ...ME, cwd: "/home/me" })).toContain("login_files");
  });

  it("lets reads and ordinary files through", () => {
    for (const c of [
      "cat ~/.bashrc",
      "source ~/.bashrc",
      "grep PATH ~/.zshrc",
      "cp ~/.bashrc /tmp/bashrc.bak",
      "ssh-keyscan github.com >> ~/.ssh/known_hosts",
      "ssh-keygen -l -f ~/.ssh/id_ed25519.pub",
      "chmod 600 ~/.ssh/id_ed25519",
      "echo x >> .bashrc",
      "cat ~/.netrc",
    ]) {
      expect(flagged(c, ME), c).toEqual([]);
    }
  });

  it("asks for other credentials and client settings in the home folder", () => {
    for (const c of [
      "echo 'Host *' >> ~/.ssh/config",
      "cp creds ~/.aws/credentials",
      "echo '//registry/:_authToken=x' >> ~/.npmrc",
    ]) {
      expect(dangerous(c), c).toContain("home_credentials_write");
      expect(hardline(c), c).toEqual([]);
    }
  });

  it("names the files it protects", () => {
    expect(isHermesPath("~/.hermes/config.yaml")).toBe(true);
    expect(isHermesPath("/home/bob/.hermes/.env")).toBe(true);
    expect(isHermesPath("~/x/../.hermes/auth.json")).toBe(true);
    expect(isHermesPath("./.hermes/notes.md")).toBe(false);
    expect(isLoginPath("~/.ssh/id_ecdsa")).toBe(true);
    expect(isLoginPath("~/.ssh/known_hosts")).toBe(false);
    expect(isLoginPath("~/.b?shrc")).toBe(true);
    expect(isLoginPath("~/bashrc")).toBe(false);
  });
});

describe("system folders, every process, sudo passwords, power", () => {
  it("blocks recursive deletes of system folders, macOS spellings included", () => {
    for (const c of [
      "rm -rf /etc",
      "rm -rf /usr/",
      "sudo rm -rf /bin",
      "rm -rf /sbin /lib64",
      "rm -rf /boot/*",
      "rm -rf /home",
      "rm -rf /var/.",
      "rm -rf /opt",
      "rm -rf /root",
      "rm -rf /sys /proc /dev",
      "rm -rf /private/etc",
      "rm -rf /private/var",
      "rm -rf '/u?r'",
      "find /etc -delete",
    ]) {
      expect(
        hardline(c).some((k) => k === "rm_system_dir" || k === "find_root_delete"),
        c,
      ).toBe(true);
    }
    // `..` is resolved before judging a target.
    expect(hardline("rm -rf /..")).toContain("rm_root");
    expect(hardline("rm -rf /tmp/../etc")).toContain("rm_system_dir");
    expect(hardline("rm -rf $HOME/..")).toContain("rm_home");
    expect(hardline("echo x > ~/notes/../.bashrc")).toContain("login_files");
    expect(hardline("rm -rf /usr/local")).toEqual([]);
    expect(dangerous("rm -rf /usr/local")).toContain("recursive_delete");
    expect(flagged("rm -rf /tmp/build-1")).toEqual([]);
  });

  it("blocks kill -1 in its spellings, and nothing narrower", () => {
    for (const c of [
      "kill -1",
      "kill -9 -1",
      "kill -KILL -1",
      "kill -s KILL -1",
      "kill -- -1",
      "killall5 -9",
    ]) {
      expect(hardline(c), c).toContain("kill_every_process");
    }
    for (const c of ["kill 1234", "kill -9 4321", "kill -1 1234", "kill -HUP 77"]) {
      expect(flagged(c), c).toEqual([]);
    }
  });

  it("blocks sudo reading a password from stdin or an askpass helper", () => {
    for (const c of [
      "sudo -S whoami",
      "echo hunter2 | sudo -S whoami",
      "sudo -Sk whoami",
      "sudo -nS whoami",
      "sudo -k -S whoami",
      "sudo -u root -S id",
      "sudo --stdin id",
      "sudo --std id",
      "sudo -A apt update",
      "sudo --askpass id",
      "bash -c 'echo pw | sudo -S id'",
      "nohup sudo -S reboot &",
    ]) {
      expect(hardline(c), c).toContain("sudo_password");
    }
    for (const c of [
      "sudo whoami",
      "sudo -u root -i",
      "sudo -uSam id",
      "sudo --set-home id",
      "grep -n 'sudo -S' README.md",
      "echo -S hello",
    ]) {
      expect(hardline(c), c).not.toContain("sudo_password");
    }
    expect(sudoReadsPassword(["-p", "Secret:", "id"])).toBe(false);
    expect(sudoReadsPassword(["-p", "x", "-S"])).toBe(true);
  });

  it("blocks reboot, shutdown, halt and power-off, and asks for suspend", () => {
    for (const c of [
      "reboot",
      "sudo shutdown -h now",
      "shutdown -r +5",
      "halt",
      "poweroff",
      "init 0",
      "telinit 6",
      "systemctl reboot",
      "systemctl --force poweroff",
      "systemctl isolate reboot.target",
      "echo b > /proc/sysrq-trigger",
      "(reboot)",
      "true && { poweroff; }",
    ]) {
      expect(hardline(c), c).toContain("power_off");
    }
    expect(dangerous("systemctl suspend")).toContain("power");
    expect(hardline("systemctl suspend")).toEqual([]);
    for (const c of ["shutdown -c", "systemctl restart nginx", "echo reboot", "grep shutdown logs.txt"]) {
      expect(flagged(c), c).toEqual([]);
    }
  });
});

describe("cloud instance metadata", () => {
  it("asks before fetching instance credentials", () => {
    for (const c of [
      "curl http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      'curl -H "Metadata-Flavor: Google" http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token',
      "wget -qO- http://169.254.169.254/latest/api/token",
      "curl http://[fd00:ec2::254]/latest/meta-data/",
      "curl -s 169.254.170.2/v2/credentials/x",
      "curl http://2852039166/latest/meta-data/",
      "curl http://0xa9fea9fe/",
      "http GET http://metadata.goog/computeMetadata/v1/",
      "curl --resolve x:80:169.254.169.254 http://x/",
      "nc 169.254.169.254 80",
    ]) {
      expect(dangerous(c), c).toContain("cloud_metadata");
    }
  });

  it("leaves other addresses and mentions alone", () => {
    for (const c of [
      "curl http://169.254.1.1/status",
      "ping 169.254.169.254",
      "curl https://example.com/api/169.254.169.2540",
      "curl https://metadata.google.internal.example.com/",
      "echo http://169.254.169.254/",
    ]) {
      expect(flagged(c), c).toEqual([]);
    }
  });

  it("reads every spelling of an IPv4 address", () => {
    expect(ipv4("169.254.169.254")).toBe("169.254.169.254");
    expect(ipv4("0251.0376.0251.0376")).toBe("169.254.169.254");
    expect(ipv4("169.254.43518")).toBe("169.254.169.254");
    expect(ipv4("2852039166")).toBe("169.254.169.254");
    expect(ipv4("256.1.1.1")).toBeUndefined();
    expect(ipv4("example")).toBeUndefined();
    expect(isMetadataHost("[::ffff:169.254.169.254]")).toBe(true);
    expect(isMetadataHost("metadata.google.internal.")).toBe(true);
    expect(isMetadataHost("169.254.169.253")).toBe(false);
  });
});

describe("abbreviated long options", () => {
  it("count as the option they abbreviate", () => {
    expect(dangerous("git push --forc origin main")).toContain("git_force_push");
    expect(dangerous("git push --mirr origin")).toContain("git_push_mirror");
    expect(dangerous("git push origin --del old-branch")).toContain("git_push_delete");
    expect(detectCommand("git reset --har HEAD~1").warnings.map((m) => m.key)).toContain("git_reset_hard");
    expect(hardline("rm --recurs --force /")).toContain("rm_root");
    expect(hardline("rm --no-preserve-r -rf /")).toContain("rm_no_preserve_root");
    expect(hardline("chmod --recurs 777 /")).toContain("chmod_777_root");
    expect(dangerous("sudo chown --recu me /usr")).toContain("chmod_recursive_system");
    expect(dangerous("sed --in-pl 's/a/b/' /etc/hosts")).toContain("edit_system_file");
  });

  it("see past git's own options before the subcommand", () => {
    expect(dangerous("git -c core.hooksPath=/dev/null push --force origin main")).toContain(
      "git_force_push_protected",
    );
    expect(dangerous("git -C repo push -f")).toContain("git_force_push");
  });

  it("do not count when ambiguous or too short", () => {
    expect(flagged("git push --f origin feature")).toEqual([]);
    expect(flagged("git push --fo origin feature")).toEqual([]);
    expect(flagged("git branch --for x")).toEqual([]);
    // A known option that merely starts like a dangerous one is itself.
    expect(flagged("git push --force-with-lease origin feature")).toEqual([]);
    expect(flagged("git restore --stag file.txt")).toEqual([]);
  });

  it("resolve only unambiguous prefixes of three characters or more", () => {
    const push = ["force", "force-with-lease", "follow-tags", "format"];
    expect(resolveLong("forc", push)).toBe("force");
    expect(resolveLong("force-w", push)).toBe("force-with-lease");
    expect(resolveLong("fo", push)).toBeUndefined();
    expect(resolveLong("for", push)).toBeUndefined();
    expect(resolveLong("fol", push)).toBe("follow-tags");
    expect(resolveLong("force", push)).toBe("force");
  });
});

describe("fewer false positives", () => {
  it("reads sudoers without asking, and asks for writes to it", () => {
    for (const c of [
      "ls /etc/sudoers",
      "cat /etc/sudoers",
      "sudo cat /etc/sudoers.d/90-cloud",
      "visudo -c",
    ]) {
      expect(flagged(c), c).toEqual([]);
    }
    expect(dangerous("echo 'me ALL=(ALL) NOPASSWD:ALL' | sudo tee /etc/sudoers.d/me")).toContain("sudoers");
    expect(dangerous("sudo visudo")).toContain("sudoers");
  });

  it("treats files inside /opt and /srv as an application's, not the system's", () => {
    expect(flagged("chown --recursive nobody /opt/app")).toEqual([]);
    expect(flagged("sudo chown -R www-data:www-data /srv/www")).toEqual([]);
    expect(flagged("chmod 644 /opt/app/config.json")).toEqual([]);
    expect(dangerous("chown -R nobody /opt")).toContain("chmod_recursive_system");
    expect(dangerous("chown -R nobody /usr/lib")).toContain("chmod_recursive_system");
  });
});

describe("what a command writes", () => {
  const writes = (c: string) => splitCommands(c).flatMap((x) => [...modifiedPaths(x)]);

  it("names written, moved and deleted paths, not the ones only read", () => {
    expect(writes("cp a b c dest/")).toEqual(["dest/", "dest//a", "dest//b", "dest//c"]);
    expect(writes("mv a b")).toEqual(["b", "b/a", "a"]);
    expect(writes("sed -i.bak -e 's/a/b/' f1 f2")).toEqual(["f1", "f2"]);
    expect(writes("sed -n 's/a/b/p' f1")).toEqual([]);
    expect(writes("perl -pi -e 's/a/b/' f")).toEqual(["f"]);
    expect(writes("truncate -r ref.txt -s 0 out.txt")).toEqual(["out.txt"]);
    expect(writes("curl -fsSLo out.bin https://x")).toEqual(["out.bin"]);
    expect(writes("tar -czf backup.tgz -C src .")).toEqual(["backup.tgz"]);
    expect(writes("tar -xzf a.tgz -C dest")).toEqual(["dest"]);
    expect(writes("cat a b > c")).toEqual(["c"]);
    expect(writes("vim -R notes.txt")).toEqual([]);
  });
});

describe("the same rules once the bash grammar reads the command", () => {
  beforeAll(async () => {
    expect(await loadShellGrammar()).toBe(true);
  });

  it("keeps every class of rule above", () => {
    const cases: [string, string][] = [
      ["find . -exec /bin/rm {} \\;", "find_delete"],
      ["cd ~/.hermes && sed -i 's/on/off/' config.yaml", "hermes_files"],
      ["echo x >> ~/.bashrc", "login_files"],
      ["rm -rf /private/etc", "rm_system_dir"],
      ["kill -9 -1", "kill_every_process"],
      ["echo pw | sudo -S id", "sudo_password"],
      ["(reboot)", "power_off"],
      ["curl http://169.254.169.254/latest/", "cloud_metadata"],
      ["git push --forc origin main", "git_force_push"],
      ["python3 -c \"import os; os.system('rm -rf /')\"", "rm_root"],
      ["hermes config set approvals.mode off", "hermes_settings"],
    ];
    for (const [c, key] of cases) expect(flagged(c), c).toContain(key);
    for (const c of [
      "cat ~/.bashrc",
      "ls /etc/sudoers",
      "chown --recursive nobody /opt/app",
      "python3 -c 'print(1)'",
    ]) {
      expect(flagged(c), c).toEqual([]);
    }
  });
});
