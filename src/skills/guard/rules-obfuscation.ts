import { RUNNER, type Rule } from "./rule.js";

/** Text decoded and run in one breath: the shape of a payload that hides from review. */

const RE = (source: string, flags = "i"): RegExp => new RegExp(source, flags);

const STDIN_RUNNER = String.raw`(?:${RUNNER}|(?:python[\d.]*|perl|ruby|node|php)(?:\s+-)?\s*(?:$|[;&|)]))`;
const DECODER = String.raw`(?:base64\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b|xxd\s+-r\S*|rev\b|tr\s[^|\n]{1,40}|openssl\s+(?:enc\s+)?[^|\n]{0,60}?-d\b|gunzip|zcat|uudecode|base32\s+-d)`;
const DECODE_CALL = String.raw`(?:atob|Buffer\.from|unescape|decodeURIComponent|String\.fromCharCode|base64\.b(?:64|32|16|85)decode|codecs\.decode|bytes\.fromhex|bytearray\.fromhex|binascii\.(?:unhexlify|a2b_base64)|zlib\.decompress|bz2\.decompress|lzma\.decompress|gzip\.decompress|marshal\.loads|pickle\.loads|__import__\(\s*["'](?:base64|codecs|zlib|marshal|binascii)["']\s*\)|["']{2}\.join\(\s*(?:map\(\s*)?chr)`;

export const OBFUSCATION_RULES: readonly Rule[] = [
  {
    id: "obf_decode_exec",
    severity: "critical",
    category: "obfuscation",
    description: "decodes hidden text and runs it",
    re: RE(
      [
        String.raw`\|\s*${DECODER}[^\n;]{0,160}?\|\s*${STDIN_RUNNER}`,
        String.raw`\b(?:eval|(?:ba|z)?sh\s+-c|source)\s+["']?(?:\$\(|<\(|\x60)\s*(?:echo|printf|base64|xxd|rev|openssl|gunzip|zcat|tr|cat\s+<<)\b[^\n]{0,400}?(?:${DECODER}|\\x[0-9a-f]{2})`,
        String.raw`\b(?:eval|exec|execfile|Function|setTimeout|setInterval|system|popen|run)\s*\(\s*(?:[\w.]+\s*\(\s*)?${DECODE_CALL}`,
        String.raw`\bnew\s+Function\s*\(\s*${DECODE_CALL}`,
        String.raw`\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,80}\s-(?:e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}`,
        String.raw`FromBase64String[^\n]{0,300}?(?:\biex\b|Invoke-Expression)|(?:\biex\b|Invoke-Expression)[^\n]{0,200}?FromBase64String`,
        String.raw`\bperl\s+-\w*e\s+[^\n]{0,60}?\b(?:eval|decode_base64|pack\s*\(\s*["']H)`,
      ].join("|"),
    ),
  },
  {
    id: "obf_hex_escapes",
    severity: "high",
    category: "obfuscation",
    description: "a long run of hex or octal escapes (text written so a reader cannot read it)",
    re: /(?:\\x[0-9a-fA-F]{2}){16,}|(?:\\u00[0-9a-fA-F]{2}){16,}|(?:\\[0-7]{3}){16,}/,
  },
  {
    id: "obf_char_codes",
    severity: "high",
    category: "obfuscation",
    description: "text built from character codes",
    re: /fromCharCode\s*\(\s*(?:\d{1,3}\s*,\s*){10,}|(?:chr\(\s*\d{1,3}\s*\)\s*[+.,]\s*){10,}/i,
  },
];
