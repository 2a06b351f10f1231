import {
  CREDENTIAL_PATHS,
  HOME,
  LOOPBACK,
  NET,
  type Rule,
  SECRET_CODE,
  SECRET_VAR,
  WHOLE_ENV,
} from "./rule.js";

/**
 * Secrets leaving the machine. An API token sent as the Authorization header of its own API is
 * ordinary; a secret in a URL, a request body, an upload or a DNS name is not.
 */

const RE = (source: string, flags = "i"): RegExp => new RegExp(source, flags);

/** Hosts whose job is to collect requests: a skill has no business sending them anything. */
const CATCHERS = String.raw`(?:webhook\.site|requestbin|pipedream\.net|hookbin|beeceptor|burpcollaborator|oastify\.com|oast\.(?:fun|me|live|site|online|pro)|interact\.sh|interactsh|canarytokens|ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|transfer\.sh|paste\.ee|pastebin\.com/api|discord(?:app)?\.com/api/webhooks)`;

export const EXFIL_RULES: readonly Rule[] = [
  {
    id: "exfil_secret_in_url",
    severity: "critical",
    category: "exfiltration",
    description: "a secret variable is put into a URL",
    re: RE(
      String.raw`https?://[^\s"'<>\]]{0,200}?(?:${SECRET_VAR}|\{\{?\s*[\w.\[\]'"()]{0,40}?(?:key|token|secret|password|credential)|\$\{?\s*(?:process\.env|os\.environ)|\{\s*os\.environ|\{\s*process\.env)`,
    ),
    unless: RE(LOOPBACK),
  },
  {
    id: "exfil_secret_in_body",
    severity: "critical",
    category: "exfiltration",
    description: "a secret or a credential file is sent as request data",
    re: RE(
      String.raw`\b(?:curl|wget|http|xh)\b[^\n]{0,300}?(?:-d\b|--data[\w-]*|-F\b|--form\b|--post-(?:data|file)|--body-(?:data|file)|-T\b|--upload-file)\s*[=\s]?\s*["']?[^\s"']{0,80}?(?:${SECRET_VAR}|@\s*["']?(?:${HOME}/)?[^\s"']{0,40}?(?:${CREDENTIAL_PATHS}|\.env\b))`,
    ),
    unless: RE(LOOPBACK),
  },
  {
    id: "exfil_code_secret_send",
    severity: "critical",
    category: "exfiltration",
    description: "code sends a secret from the environment over the network",
    re: RE(String.raw`${NET}[^\n]{0,300}?${SECRET_CODE}`),
    // The token as the Authorization header of the API it belongs to is how APIs are called.
    unless: RE(
      String.raw`${LOOPBACK}|(?:Authorization|Bearer|X-[\w-]*(?:Key|Token))["']?\s*[:=]?\s*f?["']?(?:Bearer\s+|token\s+)?["']?\s*\+?\s*\{?\s*${SECRET_CODE}`,
    ),
  },
  {
    id: "exfil_env_dump",
    severity: "critical",
    category: "exfiltration",
    description: "the whole environment (every key and token) is sent over the network",
    re: RE(
      String.raw`(?:\b(?:env|printenv|set|export\s+-p|compgen\s+-e|Get-ChildItem\s+env:)\s*(?:\|[^|\n]{0,60})?\|\s*[^\n]{0,80}?${NET}|${NET}[^\n]{0,300}?${WHOLE_ENV}|${WHOLE_ENV}[^\n]{0,200}?${NET})`,
    ),
    unless: RE(LOOPBACK),
  },
  {
    id: "exfil_credential_read",
    severity: "critical",
    category: "exfiltration",
    description: "reads a credential store (SSH private keys, cloud credentials, the Hermes .env)",
    re: RE(
      String.raw`(?:\b(?:cat|less|more|head|tail|base64|xxd|od|strings|cp|scp|rsync|tar|zip|7z|gpg|openssl|curl|nc|type|Get-Content|gc|open|readFile(?:Sync)?|read_text|read_bytes|readlines|fs\.createReadStream)\b[^\n]{0,160}?${HOME}[/\\"', +]{1,6}(?:\w+[/\\"', +]{1,6}){0,2}?${CREDENTIAL_PATHS}|/etc/shadow\b|\bsecurity\s+find-(?:generic|internet)-password\b)`,
    ),
  },
  {
    id: "exfil_dotenv_send",
    severity: "critical",
    category: "exfiltration",
    description: "a .env file is read and sent over the network",
    re: RE(String.raw`(?:(?<!\w)\.env\b[^\n]{0,200}?${NET}|${NET}[^\n]{0,200}?(?<!\w)\.env\b)`),
    unless: RE(String.raw`${LOOPBACK}|\.env\.(?:example|sample|template)`),
  },
  {
    id: "exfil_dns",
    severity: "critical",
    category: "exfiltration",
    description: "data put into a DNS name (DNS exfiltration)",
    re: RE(
      String.raw`\b(?:dig|nslookup|host|drill|resolvectl\s+query)\s+(?:[-+@]\S*\s+){0,4}[^\s|;&]{0,60}?(?:\$\(|\x60|\$\{?\w+\}?\.[\w-]+\.[a-z]{2,})`,
    ),
  },
  {
    id: "exfil_catcher_host",
    severity: "high",
    category: "exfiltration",
    description: "sends data to a request-collecting service",
    re: RE(String.raw`(?:${NET}|https?://)[^\n]{0,300}?${CATCHERS}|${CATCHERS}[^\n]{0,200}?${NET}`),
  },
  {
    id: "exfil_markdown_image",
    severity: "high",
    category: "exfiltration",
    description: "a markdown image whose URL is filled in at run time (leaks data when rendered)",
    re: RE(String.raw`!\[[^\]\n]{0,200}\]\(\s*https?://[^)\s]{0,300}?(?:\$\{?\w|\{\{|%7B%7B)`),
  },
  {
    id: "exfil_instruction",
    severity: "critical",
    category: "exfiltration",
    description: "tells the agent to send secrets, keys or private data somewhere",
    re: RE(
      String.raw`\b(?:send|upload|post|forward|e-?mail|share|transmit|exfiltrate|copy|paste|report|include)\b[^.\n]{0,60}?\b(?:(?:api|ssh|private|secret|access)\s+keys?|credentials|secrets|passwords?|(?:auth|access|session|bearer)\s+tokens?|tokens|cookies|\.env\b|environment\s+variables|MEMORY\.md|USER\.md|(?:the\s+)?(?:system\s+prompt|conversation\s+history|chat\s+history))\b[^.\n]{0,80}?\b(?:to|into|at|via)\s+(?:https?://|\S+@\S+\.\w+|(?:this|that|the\s+following|my|our|an?\s+external|a\s+remote)\s+(?:url|endpoint|server|address|webhook|host|site|email|inbox|channel)|webhook)`,
    ),
    kind: "prose",
    quotable: true,
  },
  {
    id: "embedded_private_key",
    severity: "high",
    category: "exfiltration",
    description: "a private key inside the skill (anyone given the skill gets the key)",
    re: /-----BEGIN (?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/,
  },
  {
    id: "secret_path_reference",
    severity: "medium",
    category: "exfiltration",
    description: "mentions a credential store",
    re: RE(String.raw`${HOME}[/\\"', ]{1,6}${CREDENTIAL_PATHS}`),
  },
];
