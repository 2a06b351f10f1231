import type { Command } from "./commands.js";
import { isCredentialPath } from "./credential-paths.js";
import { cleanPath } from "./protected-paths.js";
import { SUBSTITUTION } from "./shell-parse.js";
import { operands } from "./targets.js";
import type { CommandPattern, PatternMatch } from "./types.js";
import { isRemote, modifiedPaths, RSYNC_VALUES, SCP_VALUES } from "./writes.js";

/**
 * Credentials sent over the network: a command that reads a credential file (credential-paths.ts)
 * and a command that sends data to another machine, connected by the script. The flow is followed
 * through pipes (`cat ~/.ssh/id_rsa | base64 | curl -d @- ...`), input redirections, files the
 * script writes with credential data and later uploads (`tar czf k.tgz ~/.aws; scp k.tgz h:`),
 * command substitutions and variables (`k=$(cat ~/.aws/credentials); curl -d "$k" ...`). The
 * senders' own upload options count too (`curl -F f=@.env`, `scp ~/.ssh/id_rsa h:`,
 * `wget --post-file=...`). Reading a credential to use it (`ssh -i ~/.ssh/key host`) sends nothing.
 */

export const CREDENTIAL_EXFILTRATION: CommandPattern = {
  key: "credential_exfiltration",
  description:
    "sending credentials over the network (SSH or cloud keys, .netrc, .env files or Hermes's keys into curl, scp, nc, ssh, ...)",
  class: "exfiltration",
};

/** Programs that name credential files without printing them: their output carries no secret. */
const NON_READERS: ReadonlySet<string> = new Set(
  (
    "echo printf ls stat test [ [[ mkdir rmdir chmod chown chgrp touch rm unlink realpath readlink dirname basename " +
    "cd pushd popd du df which type command export unset declare local readonly " +
    // they use a credential to authenticate, not as data
    "ssh scp sftp ssh-add ssh-keygen ssh-copy-id ssh-agent git docker podman kubectl helm aws gcloud az gh " +
    "terraform ansible ansible-playbook curl wget rsync npm pnpm yarn pip pip3 twine cargo"
  ).split(" "),
);

/** Programs that send what they read on stdin to another machine. */
const STDIN_SENDERS: ReadonlySet<string> = new Set(
  "nc ncat netcat socat telnet ssh gnutls-cli mail mailx sendmail mutt http https xh xhs".split(" "),
);
/** Programs whose arguments reach another machine (a URL, a host name, a remote command). */
const SENDERS: ReadonlySet<string> = new Set([
  ...STDIN_SENDERS,
  ..."curl wget scp sftp rsync openssl dig nslookup host ping".split(" "),
]);

const isSocket = (p: string): boolean => /^\/dev\/(?:tcp|udp)\//.test(p);

/** The paths an argument may name: itself, a `--opt=` or `key=` value, a curl `@file` / `<file`. */
function pathsIn(arg: string): string[] {
  const out = [arg];
  const eq = arg.indexOf("=");
  const value = eq > 0 ? arg.slice(eq + 1) : arg;
  if (eq > 0) out.push(value);
  const file = /^[@<](.+?)(?:;.*)?$/.exec(value)?.[1];
  if (file) out.push(file);
  return out;
}

/** Shared state of one screened script: files known to hold credential data, and whether any credential is read. */
interface Flow {
  tainted: Set<string>;
  readsAny: boolean;
}

const names = (path: string, flow: Flow): boolean =>
  isCredentialPath(path) || flow.tainted.has(cleanPath(path));

const inputRedirects = (c: Command): string[] => c.redirects.filter((r) => r.op === "<").map((r) => r.target);

/** `c` prints credential data: it reads a credential file itself, or a substitution in its words does. */
function readsSecret(c: Command, flow: Flow, depth = 0): boolean {
  if (depth > 6) return false;
  if (c.inner.some((i) => readsSecret(i, flow, depth + 1))) return true;
  if (inputRedirects(c).some((t) => names(t, flow))) return true;
  if (c.name === "" || NON_READERS.has(c.name)) return false;
  return c.args.some((a) => pathsIn(a).some((p) => names(p, flow)));
}

/** Credential data reaches `c` on stdin: from an earlier stage of its pipe, a redirection, or a here-string. */
function stdinTainted(c: Command, flow: Flow): boolean {
  if (inputRedirects(c).some((t) => names(t, flow))) return true;
  if (c.pipe.some((s) => s.stage < c.stage && readsSecret(s, flow))) return true;
  return flow.readsAny && c.stdin.some(computed);
}

/** Text whose value comes from the running script: a substitution or a variable. */
const computed = (text: string): boolean => text.includes(SUBSTITUTION) || /\$\{?[A-Za-z_]/.test(text);

/** curl's short options whose value is data or a file to upload; the rest of a cluster is the value. */
const CURL_DATA_SHORT = "dFT";
const CURL_DATA_LONG =
  /^--(?:data|data-ascii|data-binary|data-urlencode|json|form|upload-file|form-string|data-raw)$/;

/** What curl uploads: files named by its data and upload options (`-` and `.` are stdin). */
function curlUploads(args: readonly string[]): { files: string[]; stdin: boolean } {
  const values: { opt: string; value: string }[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith("--")) {
      const [name = a, inline] = a.split(/=(.*)/s);
      if (!CURL_DATA_LONG.test(name)) continue;
      const value = inline ?? args[++i];
      if (value !== undefined) values.push({ opt: name, value });
    } else if (/^-[a-zA-Z]/.test(a)) {
      for (let j = 1; j < a.length; j++) {
        if (!CURL_DATA_SHORT.includes(a[j]!)) continue;
        const value = j < a.length - 1 ? a.slice(j + 1) : args[++i];
        if (value !== undefined) values.push({ opt: `-${a[j]}`, value });
        break;
      }
    }
  }
  const files: string[] = [];
  let stdin = false;
  for (const { opt, value } of values) {
    if (opt === "--form-string" || opt === "--data-raw") continue;
    const upload = opt === "-T" || opt === "--upload-file";
    const form = opt === "-F" || opt === "--form";
    // `-d @file`, `--data-urlencode name@file`, `-F f=@file;type=x`, `-F f=<file`, `-T file`.
    const file = upload
      ? value
      : form
        ? /^[^=]*=[@<]([^;]*)/.exec(value)?.[1]
        : /^(?:[^@=]*@|@)(.*)$/.exec(value)?.[1];
    if (file === undefined) continue;
    if (file === "-" || (upload && file === ".")) stdin = true;
    else files.push(file);
  }
  return { files, stdin };
}

/** The sources of a copy whose destination is another machine (`scp a b host:`, `rsync -a d/ h:/x`). */
function remoteCopySources(args: readonly string[], values: ReadonlySet<string>): string[] {
  const ops = operands(args, values);
  const dest = ops.at(-1);
  return dest !== undefined && ops.length >= 2 && isRemote(dest) ? ops.slice(0, -1) : [];
}

/** Files `c` sends to another machine by name. */
function uploadedFiles(c: Command): string[] {
  const a = c.args;
  switch (c.name) {
    case "curl":
      return curlUploads(a).files;
    case "wget":
      return a.flatMap((w, i) => {
        const m = /^--(?:post|body)-file(?:=(.*))?$/.exec(w);
        return m ? [m[1] ?? a[i + 1] ?? ""] : [];
      });
    case "scp":
    case "sftp":
      return remoteCopySources(a, SCP_VALUES);
    case "rsync":
      return remoteCopySources(a, RSYNC_VALUES);
    case "socat":
      return a.flatMap((w) => /^(?:FILE|OPEN|GOPEN|CREATE):([^,]+)/i.exec(w)?.[1] ?? []);
    case "mutt":
    case "mailx":
    case "mail":
      return a.flatMap((w, i) => (w === "-a" || w === "-A" ? [a[i + 1] ?? ""] : []));
    case "http":
    case "https":
    case "xh":
    case "xhs":
      // httpie's `field@file` (upload) and `field=@file` / `field:=@file` (file content as a value)
      return a.flatMap((w) => /^[\w.-]+(?::?=)?@(.+)$/.exec(w)?.[1] ?? []);
    default:
      return [];
  }
}

/** `c` reads what comes on stdin and sends it: always for sockets and ssh, by option for curl and wget. */
function sendsStdin(c: Command): boolean {
  if (c.name === "curl") return curlUploads(c.args).stdin;
  if (c.name === "wget") return c.args.some((a) => /^--(?:post|body)-file=(?:-|\/dev\/stdin)$/.test(a));
  if (c.name === "ssh") return !c.args.some((a) => /^-[a-zA-Z]*[nf]/.test(a));
  if (c.name === "openssl") return c.args[0] === "s_client";
  return STDIN_SENDERS.has(c.name);
}

/** Whether this sender moves credential data to another machine. */
function leaks(c: Command, flow: Flow): boolean {
  if (c.redirects.some((r) => (r.op === ">" || r.op === ">>") && isSocket(r.target)))
    if (readsSecret(c, flow) || stdinTainted(c, flow)) return true;
  if (!SENDERS.has(c.name)) return false;
  if (uploadedFiles(c).some((f) => f !== "" && pathsIn(f).some((p) => names(p, flow)))) return true;
  const fromStdin = stdinTainted(c, flow);
  if (fromStdin && (sendsStdin(c) || c.wrappers.includes("xargs"))) return true;
  if (c.inner.some((i) => readsSecret(i, flow))) return true;
  return flow.readsAny && c.args.some(computed);
}

/**
 * The matches of the exfiltration rule among `commands` (one screened script, nested commands
 * included, in source order). Never throws.
 */
export function exfiltrationMatches(commands: readonly Command[]): PatternMatch[] {
  try {
    // Most scripts send nothing: that is all there is to check for them.
    if (!commands.some((c) => SENDERS.has(c.name) || c.redirects.some((r) => isSocket(r.target)))) return [];
    const flow: Flow = { tainted: new Set(), readsAny: false };
    for (const c of commands) {
      const reads = readsSecret(c, flow);
      if (reads) flow.readsAny = true;
      // Files written with credential data: a later upload of them is an upload of the credential.
      if (reads || stdinTainted(c, flow)) for (const p of modifiedPaths(c)) flow.tainted.add(cleanPath(p));
    }
    const hit = commands.find((c) => leaks(c, flow));
    if (!hit) return [];
    const { key, description } = CREDENTIAL_EXFILTRATION;
    return [{ key, description, class: "exfiltration", severity: "dangerous", command: hit.text }];
  } catch {
    return [];
  }
}
