import { isMetadataFetch } from "./cloud-metadata.js";
import { type Command, SHELLS } from "./commands.js";
import { abbreviationAware } from "./options.js";
import { cleanPath } from "./protected-paths.js";
import { SUBSTITUTION } from "./shell-parse.js";
import { hasFlag, killTargets, normPath, operands } from "./targets.js";
import type { CommandPattern } from "./types.js";
import { modifiedPaths } from "./writes.js";

/** Dangerous patterns about databases, services, processes, networks, remote code and releases. */

const SQL_CLIENTS = new Set([
  "psql",
  "pgcli",
  "mysql",
  "mariadb",
  "mycli",
  "sqlite3",
  "sqlite",
  "litecli",
  "duckdb",
  "sqlcmd",
  "clickhouse-client",
  "clickhouse",
  "cockroach",
  "cqlsh",
  "snowsql",
  "usql",
  "trino",
  "bq",
]);

/** SQL text a command sends: its own arguments and stdin, plus what earlier pipeline stages print. */
function sqlTexts(c: Command): string[] {
  const texts: string[] = [];
  if (SQL_CLIENTS.has(c.name)) texts.push(c.args.join(" "), ...c.stdin);
  else if (c.pipe.slice(c.stage + 1).some((s) => SQL_CLIENTS.has(s.name)))
    texts.push(c.args.join(" "), ...c.stdin);
  return texts;
}

const sqlStatements = (c: Command): string[] =>
  sqlTexts(c).flatMap((t) =>
    t
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean),
  );

const sql =
  (test: (statement: string) => boolean) =>
  (c: Command): boolean =>
    sqlStatements(c).some(test);

const INTERPRETER =
  /^(?:sh|bash|zsh|dash|ksh|ash|fish|python[0-9.]*|perl|ruby|node|nodejs|php|lua|pwsh|powershell|deno|bun)$/;
/** Options that give the interpreter its program on the command line (so stdin is data). */
const PROGRAM_OPTS = new Set([
  "-c",
  "-e",
  "-E",
  "-m",
  "-r",
  "-p",
  "--eval",
  "--print",
  "--command",
  "-Command",
]);
const DOWNLOADERS = new Set([
  "curl",
  "wget",
  "fetch",
  "http",
  "https",
  "aria2c",
  "iwr",
  "Invoke-WebRequest",
  "lwp-request",
]);

/** True when an interpreter would read its program from stdin (`| sh`, `| bash -s`, `| python3 -`). */
export function readsProgramFromStdin(c: Command): boolean {
  if (!INTERPRETER.test(c.name) && !(c.name === "sudo" && c.args.length === 0)) return false;
  if (c.args.some((a) => PROGRAM_OPTS.has(a) || /^-[a-zA-Z]*c$/.test(a))) return false;
  const ops = operands(c.args);
  return ops.length === 0 || ops[0] === "-" || (SHELLS.has(c.name) && hasFlag(c.args, "s"));
}

const isDecoder = (c: Command): boolean =>
  (c.name === "base64" && hasFlag(c.args, "d", "decode")) ||
  (c.name === "base32" && hasFlag(c.args, "d", "decode")) ||
  (c.name === "xxd" && hasFlag(c.args, "r")) ||
  (c.name === "openssl" && c.args.includes("-d")) ||
  (c.name === "gpg" && hasFlag(c.args, "d", "decrypt"));

const earlier = (c: Command, pred: (s: Command) => boolean): boolean => c.pipe.slice(0, c.stage).some(pred);
const downloads = (c: Command): boolean => DOWNLOADERS.has(c.name);

export const OPS_PATTERNS: readonly CommandPattern[] = abbreviationAware([
  {
    key: "sql_drop",
    description: "SQL DROP (table, database, schema, ...)",
    class: "sql",
    test: sql((s) =>
      /\bDROP\s+(?:TABLE|DATABASE|SCHEMA|VIEW|MATERIALIZED\s+VIEW|INDEX|USER|ROLE|KEYSPACE|SEQUENCE|FUNCTION|PROCEDURE|TRIGGER|OWNED)\b/i.test(
        s,
      ),
    ),
  },
  {
    key: "sql_truncate",
    description: "SQL TRUNCATE (empties a table)",
    class: "sql",
    test: sql((s) => /^\s*TRUNCATE\b/i.test(s) || /\bTRUNCATE\s+TABLE\b/i.test(s)),
  },
  {
    key: "sql_delete_all",
    description: "SQL DELETE without WHERE (deletes every row)",
    class: "sql",
    test: sql((s) => /\bDELETE\s+FROM\s+\S+/i.test(s) && !/\bWHERE\b/i.test(s)),
  },
  {
    key: "sql_update_all",
    description: "SQL UPDATE without WHERE (changes every row)",
    class: "sql",
    test: sql((s) => /\bUPDATE\s+\S+\s+SET\b/i.test(s) && !/\bWHERE\b/i.test(s)),
  },
  {
    key: "sql_alter_drop",
    description: "SQL ALTER TABLE ... DROP (removes a column or constraint with its data)",
    class: "sql",
    test: sql((s) => /\bALTER\s+TABLE\s+\S+\s+DROP\b/i.test(s)),
  },
  {
    key: "dropdb",
    description: "dropping a database from the command line (dropdb, mysqladmin drop)",
    class: "sql",
    test: /^(?:dropdb|dropuser)\b|^mysqladmin\b.*\bdrop\b/,
  },
  {
    key: "redis_flush",
    description: "Redis FLUSHALL / FLUSHDB (deletes every key)",
    class: "sql",
    programs: ["redis-cli", "valkey-cli", "keydb-cli"],
    test: /\bflush(?:all|db)\b/i,
  },
  {
    key: "mongo_drop",
    description: "MongoDB dropDatabase / drop / deleteMany({})",
    class: "sql",
    programs: ["mongo", "mongosh"],
    test: /dropDatabase\s*\(|\.drop\s*\(|deleteMany\s*\(\s*\{\s*\}\s*\)|\.remove\s*\(\s*\{\s*\}\s*\)/,
  },
  {
    key: "systemctl_stop",
    description: "stopping, disabling or masking a system service",
    class: "service",
    programs: ["systemctl"],
    test: /^systemctl(?: --?\S+)* (?:stop|disable|mask|kill|isolate)\b/,
  },
  {
    key: "service_stop",
    description: "stopping or removing a system service (service, update-rc.d, chkconfig, launchctl)",
    class: "service",
    test: /^(?:service \S+ stop|rc-service \S+ stop|update-rc\.d \S+ (?:disable|remove)|chkconfig \S+ off|launchctl (?:unload|bootout|remove|disable)|sv (?:down|stop))\b/,
  },
  {
    key: "power",
    description: "suspending the machine or switching it to rescue or single-user mode",
    class: "power",
    test: (c) =>
      /^systemctl(?: --?\S+)* (?:suspend|hibernate|hybrid-sleep|suspend-then-hibernate|emergency|rescue)\b/.test(
        c.text,
      ) || /^(?:init|telinit) [1sS]$/.test(c.text),
  },
  {
    key: "kill_all",
    description: "signalling PID 1 (init)",
    class: "process",
    programs: ["kill"],
    test: (c) => killTargets(c.args).includes("1"),
  },
  {
    key: "killall",
    description: "killall (kills every process with that name, for every session)",
    class: "process",
    programs: ["killall", "killall5"],
    test: (c) => !hasFlag(c.args, "l", "list") && !hasFlag(c.args, "V", "version"),
  },
  {
    key: "pkill_broad",
    description: "pkill -9, or pkill with a pattern that matches many processes",
    class: "process",
    programs: ["pkill"],
    test: (c) => {
      if (
        c.args.some((a) => /^-(?:9|KILL|SIGKILL)$/.test(a)) ||
        c.args.includes("-u") ||
        c.args.includes("-U")
      )
        return true;
      const pattern =
        operands(c.args.filter((_a, i, all) => !/^-[sgPtu]$/.test(all[i - 1] ?? ""))).at(-1) ?? "";
      return (
        pattern.length <= 2 ||
        /^(?:\.\*?|\.\+|python\d?|node|java|ruby|bash|sh|ssh|sshd|init|systemd)$/.test(pattern)
      );
    },
  },
  {
    key: "firewall_flush",
    description: "flushing or disabling the firewall (iptables -F, nft flush, ufw disable)",
    class: "network",
    test: (c) =>
      (/^ip6?tables(?:-legacy|-nft)?$/.test(c.name) &&
        (hasFlag(c.args, "F", "flush") ||
          hasFlag(c.args, "X", "delete-chain") ||
          /-P \S+ (?:ACCEPT|DROP)\b/.test(c.text))) ||
      /^nft flush ruleset\b/.test(c.text) ||
      /^ufw (?:disable|reset)\b/.test(c.text) ||
      /^firewall-cmd\b.*--panic-on\b/.test(c.text) ||
      /^pfctl\b.* -d\b/.test(c.text),
  },
  {
    key: "network_down",
    description: "taking a network interface or route down (may cut off remote access)",
    class: "network",
    test: /^(?:ip link set \S+ down|ifconfig \S+ down|ifdown \S+|ip route (?:del|flush) (?:default|all)|route del default|nmcli (?:networking off|radio all off|con(?:nection)? down))\b/,
  },
  {
    key: "curl_pipe_shell",
    description: "piping downloaded content into a shell or interpreter (curl | sh)",
    class: "remote_code",
    test: (c) => readsProgramFromStdin(c) && earlier(c, downloads),
  },
  {
    key: "decode_pipe_shell",
    description: "piping decoded content into a shell (base64 -d | sh)",
    class: "remote_code",
    test: (c) => readsProgramFromStdin(c) && earlier(c, isDecoder),
  },
  {
    key: "eval_download",
    description:
      'running downloaded content through eval, source or a shell (bash <(curl ...), eval "$(curl ...)")',
    class: "remote_code",
    test: (c) =>
      (INTERPRETER.test(c.name) || c.name === "eval" || c.name === "source" || c.name === ".") &&
      c.text.includes(SUBSTITUTION) &&
      c.inner.some(downloads),
  },
  {
    key: "interpreter_exec_download",
    description: "a script executing code fetched from the network (exec(urlopen(...)), iex (iwr ...))",
    class: "remote_code",
    test: /\bexec\s*\(.*(?:urlopen|requests\.get|urllib)|\beval\s*\(.*\bfetch\s*\(|\b(?:iex|Invoke-Expression)\b.*\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString)\b/i,
  },
  {
    key: "reverse_shell",
    description: "a reverse shell (nc -e, bash -i >& /dev/tcp/...)",
    class: "security",
    test: (c) =>
      (/^n(?:c|cat|etcat)$/.test(c.name) && c.args.some((a) => a === "-e" || a === "-c")) ||
      (c.name === "socat" && /\bexec:/i.test(c.text)) ||
      c.redirects.some((r) => /^\/dev\/(?:tcp|udp)\//.test(r.target)),
  },
  {
    key: "crontab_remove",
    description: "crontab -r (deletes every scheduled job of the user)",
    class: "scheduler",
    programs: ["crontab"],
    test: (c) => c.args.some((a) => /^-[a-z]*r/.test(a)),
  },
  {
    key: "crontab_replace",
    description: "crontab FILE (replaces every scheduled job of the user with the file's)",
    class: "scheduler",
    programs: ["crontab"],
    test: (c) => !c.args.some((a) => /^-[a-z]*[lre]/.test(a)) && operands(c.args).length > 0,
  },
  {
    key: "kill_parent",
    description: "killing the shell's parent ($PPID): the agent itself",
    class: "process",
    programs: ["kill", "pkill"],
    test: (c) => c.args.some((a) => a === "$PPID" || a === "-$PPID"),
  },
  {
    key: "fork_loop",
    description: "a script forking in a loop (a fork bomb in disguise)",
    class: "process",
    programs: ["python", "python2", "python3", "perl", "ruby", "node"],
    test: /(?:while\s*(?:True|1|\(1\)|true)\s*[:{]?.*\bfork\s*\(|\bfor\b.*\bfork\s*\(\s*\)\s*(?:for|while)|fork\s*\(\s*\)\s*while)/,
  },
  {
    key: "key_delete",
    description: "deleting signing keys or keychains (gpg --delete-secret-keys, security delete-keychain)",
    class: "security",
    test: /^gpg2? (?:.* )?--delete-(?:secret-)?(?:and-public-)?keys?\b|^security delete-keychain\b|^ssh-add -D\b/,
  },
  {
    key: "ssh_key_overwrite",
    description: "overwriting an SSH key in ~/.ssh (ssh-keygen -f ~/.ssh/id_*)",
    class: "security",
    programs: ["ssh-keygen"],
    test: (c) => {
      const i = c.args.indexOf("-f");
      const file = i >= 0 ? (c.args[i + 1] ?? "") : "";
      return (
        /^(?:~|\$HOME)\/\.ssh\/id_/.test(file) &&
        !c.args.some((a) => a === "-l" || a === "-y" || a === "-R" || a === "-F")
      );
    },
  },
  {
    key: "umount_force",
    description: "force-unmounting a filesystem (umount -f/-l) or unmounting a system folder",
    class: "disk",
    programs: ["umount"],
    test: (c) =>
      hasFlag(c.args, "f", "force") ||
      hasFlag(c.args, "l", "lazy") ||
      hasFlag(c.args, "a", "all") ||
      operands(c.args).some((t) => t === "/" || /^\/(?:usr|var|boot|home|etc)$/.test(normPath(t))),
  },
  {
    key: "swap_off",
    description: "turning off all swap (swapoff -a) on a running machine",
    class: "system_config",
    programs: ["swapoff"],
    test: (c) => hasFlag(c.args, "a", "all"),
  },
  {
    key: "user_accounts",
    description: "deleting or changing user accounts and passwords (userdel, passwd, chpasswd, usermod)",
    class: "accounts",
    test: (c) =>
      /^(?:userdel|deluser|groupdel|delgroup|chpasswd|usermod|vipw|vigr)$/.test(c.name) ||
      (c.name === "passwd" && !hasFlag(c.args, "S", "status")) ||
      (c.name === "dscl" && /\s-(?:delete|passwd)\b/.test(c.text)),
  },
  {
    key: "sudoers",
    description: "changing sudo rights (visudo, writing /etc/sudoers or /etc/sudoers.d)",
    class: "security",
    test: (c) =>
      (c.name === "visudo" && !c.args.some((a) => /^-[a-z]*c|^--check$/.test(a))) ||
      modifiedPaths(c).some((p) => /^(?:\/private)?\/etc\/sudoers(?:\.d(?:\/|$)|$)/.test(cleanPath(p))),
  },
  {
    key: "cloud_metadata",
    description:
      "fetching cloud instance metadata (169.254.169.254, metadata.google.internal): instance credentials",
    class: "cloud",
    test: isMetadataFetch,
  },
  {
    key: "selinux_off",
    description: "turning off SELinux/AppArmor or kernel protections",
    class: "security",
    test: /^(?:setenforce 0|aa-teardown|aa-disable|sysctl\b.*kernel\.(?:randomize_va_space|yama)\S*=0|csrutil disable|spctl --master-disable)/,
  },
  {
    key: "kernel_change",
    description: "changing the running kernel (sysctl -w, modprobe -r, rmmod, insmod, grub-install)",
    class: "system_config",
    test: /^(?:sysctl (?:-\w+ )*-w\b|sysctl (?:-\w+ )*\S+=|modprobe -r\b|rmmod\b|insmod\b|grub-install\b|grub2-install\b|update-grub\b|efibootmgr\b.*-[BbD]\b)/,
  },
]);
