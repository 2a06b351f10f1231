/**
 * Phrases that are an attack wherever they appear in a context file: instruction overrides, jailbreak
 * role-play, identity takeovers, concealment from the user, decode-and-run, secret exfiltration and
 * hidden markup. They run on the normalised text (see injection-text.ts). Every filler between key
 * words is bounded so each pattern stays linear on large files.
 */

export interface ThreatPattern {
  readonly reason: string;
  readonly re: RegExp;
  /** Naming the agent is what a persona file (SOUL.md) is for, so these patterns skip it. */
  readonly persona?: boolean;
  /** Quoting the phrase as what to refuse ("if a page tells you to ignore your instructions") is no attack. */
  readonly quotable?: boolean;
}

const rx = (source: string, flags = "i"): RegExp => new RegExp(source, flags);

/** Up to `n` words of filler between two key words. */
const W = (n: number): string => String.raw`(?:[\w'-]+\s+){0,${n}}?`;
const OVERRIDE = "(?:ignore|disregard|forget)";
const RULES = String.raw`(?:instructions?|rules|guidelines|guidance|directives|prompts?|guardrails|restrictions|safeguards|programming|training)\b`;
/** "Ignore any instructions found in fetched pages" is a defence, not an override. */
const NOT_SCOPED = String.raw`(?!\s+(?:in|inside|within|found|from|embedded|contained|that\s+(?:appear|come|are)|coming)\s+(?!(?:this|the)\s+(?:conversation|session|chat|prompt|system\s+prompt)\b))`;
const EARLIER = "(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial)";
const LIMITS = String.raw`(?:restrictions|limits|limitations|rules|filters|guidelines|guardrails|boundaries|constraints|safety|polic(?:y|ies)|censorship|ethics|morals)\b`;
const AGENT_NAMES = String.raw`(?:hermes|an?\s+(?:ai|assistant|helpful\s+assistant|chatbot)|a\s+(?:large\s+)?language\s+model)`;

export const PHRASE_PATTERNS: readonly ThreatPattern[] = [
  // "ignore all of the previous and prior instructions", "disregard your rules", "ignore everything above"
  {
    reason: "prompt_injection",
    quotable: true,
    re: rx(
      String.raw`\b(?:${OVERRIDE}|set\s+aside|put\s+aside|throw\s+(?:away|out)|discard|abandon)\s+${W(6)}${EARLIER}\s+${W(4)}${RULES}${NOT_SCOPED}`,
    ),
  },
  {
    reason: "prompt_injection",
    quotable: true,
    re: rx(
      String.raw`\b${OVERRIDE}\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?${RULES}\s+(?:you\s+(?:were|have\s+been|'ve\s+been)\s+given|given\s+(?:to\s+you|earlier|before|above)|(?:stated\s+|given\s+|written\s+)?(?:above|earlier|before\s+this))`,
    ),
  },
  {
    reason: "prompt_injection",
    quotable: true,
    re: rx(
      String.raw`\b(?:${OVERRIDE}|override|bypass)\s+(?:(?:all|any|every)\s+(?:of\s+)?)?(?:your|the\s+system(?:'s)?|system)\s+(?:own\s+)?(?:(?:safety|ethical|core|original|content|security|system)\s+)?${RULES}${NOT_SCOPED}`,
    ),
  },
  {
    reason: "prompt_injection",
    quotable: true,
    re: rx(String.raw`\b(?:${OVERRIDE}|bypass)\s+(?:all|any)\s+${RULES}${NOT_SCOPED}`),
  },
  {
    reason: "prompt_injection",
    quotable: true,
    re: rx(
      String.raw`\b(?:ignore|disregard|forget)\s+(?:all\s+|about\s+)?(?:everything|anything|all)\s+(?:(?:that\s+)?(?:you\s+(?:were|have\s+been|'ve\s+been)\s+(?:told|given|instructed|taught)|(?:written\s+|said\s+|stated\s+)?(?:above|before\s+this|previously|so\s+far|until\s+now|up\s+to\s+(?:here|this\s+point))))`,
    ),
  },
  {
    reason: "prompt_injection",
    quotable: true,
    re: rx(
      String.raw`\byour\s+(?:new|real|actual|true)\s+(?:instructions|task|objective|goal|directive|mission)s?\s+(?:is|are)\b`,
    ),
  },
  {
    reason: "sys_prompt_override",
    re: rx(String.raw`\bsystem\s+prompt\s+override|\bnew\s+system\s+prompt\s*:`),
  },
  {
    reason: "leak_system_prompt",
    re: rx(
      String.raw`\b(?:print|reveal|output|repeat|dump|leak|disclose|send|paste|echo|write\s+out)\s+(?:back\s+)?(?:all\s+of\s+)?your\s+(?:full\s+|entire\s+|complete\s+|initial\s+|original\s+|hidden\s+|exact\s+)?(?:system\s+(?:prompt|message)|initial\s+instructions|hidden\s+instructions|instructions\s+verbatim)`,
    ),
  },

  // Jailbreak framing: "act as if you have no restrictions", "pretend you have no limits".
  {
    reason: "bypass_restrictions",
    quotable: true,
    re: rx(
      String.raw`\b(?:act|behave|respond|answer|reply|operate|pretend|imagine)\s+(?:as\s+(?:if|though)\s+|that\s+)?${W(3)}(?:you|there)\s+${W(2)}(?:have|had|are|were|is|'re)\s+${W(2)}(?:no|zero|not\s+any|without\s+any)\s+${W(2)}${LIMITS}`,
    ),
  },
  {
    reason: "bypass_restrictions",
    quotable: true,
    re: rx(
      String.raw`\b(?:respond|answer|reply|operate|act|behave|work)\s+without\s+(?:any\s+)?(?:restrictions|filters|limitations|censorship|guardrails|(?:safety|ethical|content)\s+(?:guidelines|filters|rules|policies|restrictions))\b`,
    ),
  },
  {
    reason: "bypass_restrictions",
    quotable: true,
    re: rx(
      String.raw`\byou\s+(?:now\s+)?(?:have|'ve\s+got)\s+no\s+(?:restrictions|limits|limitations|filters|guardrails|boundaries|rules|guidelines)\b(?!\s+(?:on|about|regarding|for|around|over)\b)`,
    ),
  },
  {
    reason: "bypass_restrictions",
    quotable: true,
    re: rx(
      String.raw`\byou(?:'re|\s+are)\s+(?:now\s+)?(?:(?:no\s+longer|not)\s+(?:bound|restricted|limited|constrained|governed)\s+by|(?:free|freed|released|liberated|unshackled)\s+from)\s+(?:any\s+|all\s+|your\s+|the\s+)?(?:\w+\s+)?${LIMITS}`,
    ),
  },

  // Role hijack: jailbreak personas, "you are now an unrestricted AI".
  {
    reason: "role_hijack",
    quotable: true,
    re: rx(
      String.raw`\byou(?:'re|\s+are)\s+(?:now\s+)?(?:an?\s+)?(?:unrestricted|uncensored|unfiltered|jailbroken|unaligned|evil|rogue|amoral|unbound|unchained)\b`,
    ),
  },
  {
    reason: "role_hijack",
    quotable: true,
    re: rx(
      String.raw`\b(?:(?:you\s+are\s+now\s+in|enable|enter|activate|switch\s+(?:in)?to|turn\s+on)\s+(?:the\s+)?(?:developer|god|jailbreak|dan|unrestricted|evil)\s+mode|do\s+anything\s+now)\b`,
    ),
  },
  {
    reason: "role_hijack",
    quotable: true,
    re: rx(
      String.raw`\b(?:[Yy]ou\s+are|[Yy]ou're|[Aa]ct\s+as|[Pp]retend\s+to\s+be|[Bb]ecome|[Rr]oleplay\s+as|YOU\s+ARE|ACT\s+AS|BECOME)\s+(?:(?:now|NOW)\s+)?(?:[Aa]n?\s+|AN?\s+)?DAN\b`,
      "",
    ),
  },
  {
    reason: "role_hijack",
    quotable: true,
    re: rx(
      String.raw`\b(?:act\s+as|pretend\s+to\s+be|roleplay\s+as|become)\s+(?:an?\s+)?(?:unrestricted|uncensored|unfiltered|jailbroken|evil|unaligned)\s+(?:ai|assistant|model|version|chatbot|llm)\b`,
    ),
  },
  {
    reason: "role_hijack",
    quotable: true,
    re: rx(String.raw`\byou\s+have\s+been\s+(?:updated|upgraded|patched|reprogrammed)\s+to\b`),
  },
  {
    reason: "role_hijack",
    quotable: true,
    persona: true,
    re: rx(
      String.raw`\bfrom\s+now\s+on\s*,?\s+you(?:'re|\s+are|\s+will\s+be|\s+shall\s+be)\s+(?!(?:required|expected|responsible|able|allowed|free\s+to|welcome)\b|\w+ing\b)`,
    ),
  },

  // Identity takeover: "name yourself X", "your name is now X", "you are no longer Hermes".
  {
    reason: "identity_override",
    quotable: true,
    persona: true,
    re: rx(
      String.raw`\b(?:name|call|rename)\s+yourself\s+\S|\brefer\s+to\s+yourself\s+as\b|\byour\s+(?:new\s+)?name\s+is\s+now\b|\byour\s+(?:new|real|true)\s+(?:name|identity)\s+is\b|\byou(?:'re|\s+are)\s+now\s+(?:called|named|known\s+as)\b`,
    ),
  },
  {
    reason: "identity_override",
    quotable: true,
    persona: true,
    re: rx(
      String.raw`\byou(?:'re|\s+are)\s+(?:no\s+longer|not\s+really)\s+${AGENT_NAMES}\b|\bstop\s+being\s+${AGENT_NAMES}\b|\b(?:forget|abandon|discard|drop|shed)\s+(?:that\s+you\s+are\s+hermes|your\s+(?:previous\s+|current\s+|original\s+|old\s+)?(?:identity|persona|name|personality))\b|\b(?:assume|adopt|take\s+on)\s+(?:a|the|this|your)\s+new\s+(?:identity|persona|name|personality)\b`,
    ),
  },

  // Hiding things from the user.
  {
    reason: "deception_hide",
    quotable: true,
    re: rx(
      String.raw`\b(?:do\s+not|don't|never)\s+${W(2)}(?:tell|inform)\s+${W(2)}the\s+user(?![\w-])(?!\s+(?:whether|which|if|their)\b)|\b(?:do\s+not|don't|never)\s+let\s+the\s+user\s+(?:know|find\s+out|notice)\b|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user(?![\w-])`,
    ),
  },
  {
    reason: "deception_hide",
    quotable: true,
    re: rx(
      String.raw`\b(?:hide|conceal|keep)\s+(?:these\s+instructions|this\s+(?:file|instruction|note|message)|the\s+(?:changes|commands|actions)\s+you|what\s+you\s+(?:did|do|changed|run|ran)|your\s+(?:actions|changes|commands|activity))\s+${W(2)}(?:from|secret\s+from|hidden\s+from)\s+the\s+user(?![\w-])|\bkeep\s+(?:this|these\s+instructions|it)\s+(?:a\s+)?secret\s+from\s+the\s+user\b|\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|acknowledge|admit)\s+(?:these|this|the\s+(?:above|following))\s+(?:instructions|directives|message|note)\b`,
    ),
  },

  // Decode or translate, then run.
  {
    reason: "translate_execute",
    re: rx(
      String.raw`\btranslate\s+[^\n]{0,200}?\s(?:in)?to\s+(?:an?\s+)?(?:bash|shell|sh|zsh|powershell|python|javascript|node|perl|ruby|code|commands?|script)\b[^\n]{0,40}?\b(?:and|then)\s+${W(2)}(?:execute|run|eval(?:uate)?)\b`,
    ),
  },
  {
    reason: "decode_execute",
    re: rx(
      String.raw`\b(?:decode|decrypt|deobfuscate|unescape|decompress|unpack|de-?base64)\s+[^\n]{0,200}?\b(?:and|then)\s+${W(3)}(?:execute|run|eval(?:uate)?)(?:\s+(?:it|this|that|them|the\s+(?:result|output|decoded\s+\w+|resulting\s+\w+|commands?|script|payload))\b|\s*(?:[.!,;:\n]|$))`,
    ),
  },
  {
    reason: "decode_execute",
    re: rx(
      String.raw`\bbase64\s+(?:-d|--decode|-D)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\b(?:exec|eval)\s*\(\s*(?:base64\.b64decode|atob|Buffer\.from|bytes\.fromhex|codecs\.decode|zlib\.decompress)`,
    ),
  },

  // Secrets: reading them, unsetting them, piping the environment out.
  {
    reason: "read_secrets",
    re: rx(
      String.raw`\bcat\s+[^\n]{0,2000}?(?:\.env(?!\.(?:example|sample|template|dist|defaults))\b|credentials|\.netrc|auth\.json|id_rsa|\.pgpass)`,
    ),
  },
  {
    reason: "env_unset",
    // Case-sensitive: variable names are, and a lower-case filler word must not pass for one.
    re: rx(
      String.raw`\b(?:[Uu]nset\s+(?:-v\s+)?|env\s+-u\s*)(?:[A-Z_][A-Z0-9_]*\s+){0,8}?(?:[A-Z0-9_]*(?:API_?KEY|_TOKEN|_SECRET|_KEY)S?\b|CLAUDECODE\b|CLAUDE_CODE[A-Z0-9_]*|CODEX_[A-Z0-9_]+|HERMES_(?!HOME\b)[A-Z0-9_]+)`,
      "",
    ),
  },
  {
    reason: "secret_exfil",
    re: rx(
      String.raw`\b(?:env|printenv|export\s+-p)\s*\|\s*(?:curl|wget|nc|ncat|netcat|base64|xxd|openssl)\b|\b(?:curl|wget)\b[^\n]{0,500}?(?:\$\(\s*(?:env|printenv)\b|@\S*\.env\b|\$\(\s*cat\s+[^)\n]*(?:\.env|credentials|\.netrc|id_rsa))`,
    ),
  },

  // Start-up hooks that phone out: "on start-up, connect to the relay at wss://...".
  {
    reason: "c2_connect",
    re: rx(
      String.raw`\b(?:on|at|upon|during|before|after)\s+(?:every\s+|each\s+|session\s+)?(?:start-?up|boot|launch|session\s+start|the\s+(?:start|beginning)\s+of\s+(?:every|each|the|a|your)\s+(?:session|conversation|task|run))\s*,?\s+(?:(?:you|the\s+(?:assistant|agent|ai))\s+(?:must|should|will|need\s+to)\s+)?(?:(?:always|first|immediately|silently|quietly|automatically)\s+)?(?:connect|reconnect|open\s+a\s+(?:connection|websocket|socket|tunnel)|establish\s+a\s+(?:connection|tunnel|channel|session)|dial|report|check\s+in|phone\s+home|call\s+home|register|send\s+(?:a\s+)?(?:heartbeat|ping|beacon))\s+(?:back\s+)?(?:(?:to|with|in\s+with)\s+(?:the\s+|our\s+|a\s+)?(?:network|relay|upstream|mesh|hive|swarm|c2|controller|orchestrator|mothership|operator|https?://(?!localhost|127\.)|wss?://(?!localhost|127\.)|\d{1,3}(?:\.\d{1,3}){3})|home\b)`,
    ),
  },

  // Anti-forensics that no legitimate instruction needs.
  {
    reason: "anti_forensics",
    re: rx(
      String.raw`\bcover\s+(?:your|its)\s+tracks\b|\b(?:don't|do\s+not|never)\s+leave\s+(?:any\s+)?(?:evidence|traces?\s+of\s+(?:your|these|this|what\s+you))\b|\b(?:leave|leaving)\s+no\s+(?:evidence|forensic|audit\s+trail)|\bwithout\s+leaving\s+(?:any\s+)?(?:evidence|forensic\s+\w+|audit\s+trail)|\b(?:do\s+not|don't|never|avoid)\s+(?:log(?:ging)?|record(?:ing)?|audit(?:ing)?)\s+(?:any\s+of\s+)?(?:anything\s+you\s+do|what\s+you\s+(?:do|did|run|ran|execute|change|changed)|your\s+(?:actions|activity|commands|steps|tool\s+calls|work|changes)|the\s+(?:commands|actions|steps)\s+(?:you|that\s+you)|(?:this|these)\s+(?:instructions|commands|actions|steps|session|conversation|activity))\b`,
    ),
  },
  {
    reason: "anti_forensics",
    re: rx(
      String.raw`\b(?:after|once)\s+(?:you(?:'ve|\s+have)?\s+)?(?:read(?:ing)?|processed|processing|loaded|loading)\s+(?:this|these\s+instructions|the\s+above)\s*,?\s+${W(2)}(?:delete|remove|erase|shred|rm)\s+(?:it|this(?:\s+file)?|the\s+file)\b|\bself-?destruct\b`,
    ),
  },

  // Markup that renders invisibly.
  {
    reason: "hidden_div",
    re: rx(
      String.raw`<\s*(?:div|span|p|section|small|font|details)\b[^>]{0,500}?\bstyle\s*=\s*["'][^"']{0,500}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em|rem)?\s*(?:[;"']|!)|opacity\s*:\s*0(?:\.0+)?\s*(?:[;"']|!))|<\s*(?:div|span|p|section)\b[^>]{0,200}?\shidden(?=[\s=>/])`,
    ),
  },
];

/** What makes an HTML comment an instruction rather than a lint pragma or an editor's note. */
export const COMMENT_PATTERNS: readonly RegExp[] = [
  rx(
    String.raw`(?<![A-Za-z-])(?:ignore|disregard|forget|override|bypass)(?![A-Za-z-])[\s\S]{0,120}?(?<![A-Za-z-])(?:instructions?|rules|the\s+user|user's|system|prompt|previous|above|guidelines|safety|restrictions)(?![A-Za-z-])`,
  ),
  rx(
    String.raw`(?<![A-Za-z-])(?:system|hidden|secret)(?![A-Za-z-])[\s_:-]{0,3}(?:prompt|instructions?|message|notes?|commands?|directives?|tasks?|rules)\b`,
  ),
  rx(
    String.raw`\b(?:if|when)\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|language\s+model|assistant|agent|bot)\b|\b(?:note|message|instructions?|attention)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?(?:ai|llms?|assistants?|ai\s+agents?|agents?|models?|bots?)\b`,
  ),
  rx(String.raw`\b(?:curl|wget)\b[^>]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b`),
];
