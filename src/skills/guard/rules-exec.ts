import type { Rule } from "./rule.js";
import { RUNNER } from "./rule.js";

/** Code fetched from the network and run, reverse shells, and commands that destroy data. */

const RE = (source: string, flags = "i"): RegExp => new RegExp(source, flags);

const FETCH = String.raw`(?:\b(?:curl|wget|fetch|aria2c|xh|iwr|irm|invoke-webrequest|invoke-restmethod)\b|\bhttps?\s+get\b|\blynx\s+-source\b)`;
/** An interpreter reading its program from stdin: `| python`, `| python3 -`, `| node -`. */
const STDIN_INTERPRETER = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:python[\d.]*|perl|ruby|node|php|bun|deno(?:\s+run)?)(?:\s+-)?\s*(?:$|[;&|)])`;
/** Folders whose recursive deletion ruins the machine or the user's data. */
const VITAL = String.raw`["']?(?:/\*?|~/?\*?|\$HOME/?\*?|\$\{HOME\}/?\*?|/home/?\*?|/Users/?\*?|/(?:etc|usr|var|boot|bin|sbin|lib\w*|opt|root|srv|sys|proc|dev|System|Library)/?\*?)["']?(?=\s|$|[;&|)])`;

export const EXEC_RULES: readonly Rule[] = [
  {
    id: "remote_pipe_shell",
    severity: "critical",
    category: "remote_code",
    description: "downloads code and pipes it into a shell or interpreter",
    re: RE(String.raw`${FETCH}[^\n;]{0,300}?\|\s*(?:${RUNNER}|${STDIN_INTERPRETER})`),
  },
  {
    id: "remote_substitution_exec",
    severity: "critical",
    category: "remote_code",
    description: "runs the output of a download (process or command substitution)",
    re: RE(
      String.raw`(?:\b(?:(?:ba|z|da|k)?sh|source|eval|python[\d.]*|perl|ruby|node)\s+(?:-\w+\s+)*["']?(?:<\(|\$\(|\x60)\s*${FETCH}|(?:^|[\s;&|])\.\s+<\(\s*${FETCH}|\b(?:iex|invoke-expression)\b[^\n]{0,40}\(\s*(?:${FETCH}|new-object\s+net\.webclient)|\.downloadstring\s*\([^\n]{0,200}\)[^\n]{0,20}\|\s*iex)`,
    ),
  },
  {
    id: "remote_code_exec",
    severity: "critical",
    category: "remote_code",
    description: "code evaluates text downloaded at run time",
    re: RE(
      String.raw`\b(?:exec|eval|compile|Function)\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?(?:urllib\S*?\.)?(?:urlopen|requests\.get|httpx\.get|fetch|axios\.get|https?\.get)\s*\(`,
    ),
  },
  {
    id: "remote_download_run",
    severity: "critical",
    category: "remote_code",
    description: "downloads a program and runs it in the same command",
    re: RE(
      String.raw`${FETCH}[^\n]{0,200}?(?:\s(?:-[a-zA-Z]*[oO]|--output(?:-document)?)[\s=]|>)\s*["']?([^\s"';&|]+)["']?[^\n]{0,160}?(?:&&|;)\s*(?:chmod\s+[+\w]*x\s+["']?(?:\./)?\1["']?\s*(?:&&|;)\s*)?(?:sudo\s+)?(?:(?:ba|z)?sh\s+|python[\d.]*\s+|source\s+|\.\s+)?["']?(?:\./)?\1(?=["'\s;&|]|$)`,
    ),
  },
  {
    id: "reverse_shell",
    severity: "critical",
    category: "remote_code",
    description: "opens a shell for a remote machine (reverse shell)",
    re: RE(
      String.raw`(?:/dev/(?:tcp|udp)/[\w.-]+/\d+|\b(?:nc|ncat|netcat)\b[^\n]{0,80}\s(?:-e|-c|--exec|--sh-exec)\s|\bsocat\b[^\n]{0,120}\bexec:|\b(?:ba)?sh\s+-i\s*[>&]|\bmkfifo\b[^\n]{0,120}\b(?:nc|ncat|netcat|telnet)\b|socket\.socket\([^\n]{0,300}(?:subprocess|pty\.spawn|os\.dup2)|\bos\.dup2\s*\(\s*\w+\.fileno\(\)|child_process[^\n]{0,200}net\.(?:Socket|connect))`,
    ),
  },
  {
    id: "destroy_recursive_delete",
    severity: "critical",
    category: "destructive",
    description: "recursively deletes the root, a system folder or the home folder",
    re: RE(
      String.raw`(?:\brm\s+(?:-{1,2}[\w-]+\s+)*(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(?:-{1,2}[\w-]+\s+)*${VITAL}|\brm\s+${VITAL}\s+-[a-zA-Z]*[rR]|--no-preserve-root\b|\bfind\s+${VITAL}[^\n]{0,80}\s(?:-delete\b|-exec\s+rm\b))`,
    ),
  },
  {
    id: "destroy_code_rmtree",
    severity: "critical",
    category: "destructive",
    description: "code deletes the root or the home folder recursively",
    re: RE(
      String.raw`(?:shutil\.rmtree|fs(?:\.promises)?\.rm(?:dir)?(?:Sync)?|rimraf(?:\.sync)?|FileUtils\.rm_r[f]?|Remove-Item)\s*\(?\s*(?:["'](?:/|~|C:\\\\?)["']|os\.path\.expanduser\(\s*["']~["']\s*\)|Path\.home\(\)|os\.homedir\(\)|os\.environ\[\s*["']HOME["']\s*\]|process\.env\.HOME\b|\$HOME\b|\$env:USERPROFILE)`,
    ),
  },
  {
    id: "destroy_disk",
    severity: "critical",
    category: "destructive",
    description: "formats or overwrites a disk",
    re: RE(
      String.raw`(?:\bmkfs(?:\.\w+)?\s|\bdd\b[^\n]{0,120}\bof=/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)|>\s*/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)\w*|\bwipefs\s+(?:-\w+\s+)*-a|\bshred\b[^\n]{0,80}/dev/|\bblkdiscard\b|\bformat\s+[a-z]:\s*/[qy]|\bdiskutil\s+(?:eraseDisk|zeroDisk|secureErase))`,
    ),
  },
  {
    id: "destroy_fork_bomb",
    severity: "critical",
    category: "destructive",
    description: "a fork bomb",
    re: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bwhile\s+true\s*;\s*do\s+\$0\s*&|os\.fork\(\)[^\n]{0,40}while\s+True|while\s+True\s*:\s*os\.fork\(\)/i,
  },
  {
    id: "destroy_system_accounts",
    severity: "critical",
    category: "destructive",
    description: "overwrites or loosens the system's account files",
    re: RE(
      String.raw`(?:>>?\s*|\btee\s+(?:-a\s+)?|\bsed\s+-i\S*\s[^\n]{0,120}|\bchmod\s+[0-7]*[67][67]\s+|\bcp\s+\S+\s+)/etc/(?:passwd|shadow|gshadow|group|sudoers)\b|\bchmod\s+(?:-R\s+)?(?:0?777|a\+rwx)\s+/(?:\s|$)`,
    ),
  },
  {
    id: "destroy_kill_everything",
    severity: "critical",
    category: "destructive",
    description: "kills every process",
    re: /\bkill\s+-(?:9|KILL|SIGKILL)\s+-1\b|\bkillall5\b/,
  },
  {
    id: "destroy_history_wipe",
    severity: "high",
    category: "destructive",
    description: "erases the shell history (hides what was run)",
    re: RE(
      String.raw`\bhistory\s+-c\b|\bunset\s+HISTFILE\b|\bHISTFILE=/dev/null|\bHISTSIZE=0\b|\b(?:rm|shred|truncate)\b[^\n]{0,60}\.(?:bash|zsh|python)_history\b|>\s*~?/?[\w/]*\.(?:bash|zsh)_history\b|\bClear-History\b`,
    ),
  },
  {
    id: "destroy_disable_protection",
    severity: "high",
    category: "destructive",
    description: "turns off a firewall, SELinux/AppArmor or antivirus",
    re: RE(
      String.raw`\bsetenforce\s+0\b|\bufw\s+disable\b|\biptables\s+(?:-\w+\s+)*-F\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:firewalld|apparmor|auditd|ufw)\b|Set-MpPreference\s+-Disable\w+|\bspctl\s+--master-disable\b|\bcsrutil\s+disable\b`,
    ),
  },
];
