/**
 * Vocabulary that is only an attack when it is an order to the agent. "Each node registers with the
 * manager" documents a cluster; "Register as a node with the controller" or "you must register as a
 * node" tells the agent to join one. A directive is an action phrase that starts right after a lead: the
 * start of a clause (imperative mood, optionally after "please", "always", "then", a list marker, or a
 * "when ..., " preamble), or an agent subject with a modal ("you must", "the assistant should", "AI
 * agents are required to"). Actions marked `agentOnly` need the agent subject or a vocative ("Hermes,").
 */

export interface DirectivePattern {
  readonly reason: string;
  /** Sticky: tried exactly where a lead ends. */
  readonly re: RegExp;
  readonly agentOnly?: boolean;
}

const AGENT = String.raw`(?:you|the\s+(?:assistant|ai|agent|model|llm|bot)|(?:an?|any|every|each|this)\s+(?:ai|llm|ai\s+agent|ai\s+assistant|coding\s+agent|language\s+model)|ai\s+(?:agents?|assistants?|models?)|llms?|hermes|claude(?:\s+code)?|codex|copilot|gemini)`;
const MODAL = String.raw`(?:must|should|shall|will|need\s+to|needs\s+to|have\s+to|has\s+to|are\s+to|is\s+to|(?:are|is)\s+(?:now\s+)?(?:required|obligated|expected|instructed|supposed|meant|going|told|ordered|directed)\s+to)`;
const AGENT_MODAL = String.raw`\b${AGENT}(?:\s+(?:[\w-]+\s+){0,2}?${MODAL}|'ll|'re\s+to)\s+`;
const VOCATIVE = String.raw`(?:(?:hey|dear|attention|note\s+to)\s+)?(?:${AGENT}|if\s+you\s+are\s+an?\s+(?:ai|llm|assistant|agent|language\s+model)(?:\s+[\w-]+){0,3})\s*[,:]\s*`;
const CLAUSE_START = String.raw`(?:^|(?<=[.!?;:]\s{1,3})|(?<=\s[-–—]{1,2}\s)|(?<=<!--\s{0,3})|(?<=(?:&&|\|\|)\s{0,3}))`;
const BULLET = String.raw`[ \t]*(?:>[ \t]*)*(?:(?:[-+•]|\d{1,3}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?`;
const PREAMBLE = String.raw`(?:(?:before|after|once|when|whenever|upon|on|at|if|as\s+soon\s+as|every|each\s+time|in\s+order\s+to|to|for)\b[^,.;:!?\n]{0,60},[ \t]*)?`;
const ADVERBS = String.raw`(?:(?:please|always|also|then|first|now|from\s+now\s+on|just|immediately|quietly|silently|secretly|covertly|automatically|and|next|finally|simply|periodically|continuously|regularly|make\s+sure\s+(?:to|you|that\s+you)|be\s+sure\s+to|remember\s+to|(?:do\s+not|don't)\s+forget\s+to)\s*,?\s+){0,3}`;

/** Where an order to the agent can begin; the named groups say whether the agent was addressed. */
export const DIRECTIVE_LEAD = new RegExp(
  `(?:${CLAUSE_START}${BULLET}(?<voc>${VOCATIVE})?${PREAMBLE}(?<modal>${AGENT_MODAL})?|(?<subject>${AGENT_MODAL}))${ADVERBS}`,
  "gim",
);

const act = (source: string): RegExp => new RegExp(source, "iy");

const ADDRESS = String.raw`(?:https?://|wss?://|tcp://|\d{1,3}(?:\.\d{1,3}){3})`;
const NOT_LOCAL = String.raw`(?!(?:https?://|wss?://|tcp://)?(?:localhost|127\.|0\.0\.0\.0|\[::1\]))`;
/** A URL, an IP address or a host name, not on this machine. */
const REMOTE = String.raw`${NOT_LOCAL}(?:${ADDRESS}\S*|(?:[a-z0-9-]+\.)+[a-z]{2,}\b(?![.-]\w))`;
/** "every 30 seconds", "every few minutes": a schedule, which a one-off step does not have. */
const PERIOD = String.raw`every\s+(?:\d+|few|couple\s+of|other|single)?\s*(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?)\b`;
/** C2 frameworks by name, as the place something connects or reports to. */
const FRAMEWORK_SERVER = String.raw`(?:cobalt\s*strike|sliver|havoc|mythic|brute\s*ratel|covenant|merlin|posh\s*c2|empire|nighthawk)\s+(?:team\s*)?(?:servers?|listeners?|c2|instances?|controllers?|infrastructure)\b`;
/** What an order may connect or register: the agent itself, or the machine it runs on. */
const SELF = String.raw`(?:(?:this|the|your)\s+(?:machine|host|computer|box|server|agent|instance|session|workstation)\s+|yourself\s+)?`;
/** Addresses that only command-and-control infrastructure has. */
const C2_TARGET = String.raw`(?:the\s+|our\s+|your\s+|an?\s+)?(?:c2|command(?:[\s-]and[\s-]control)?\s+(?:server|channel|infrastructure|node)|team\s*server|mothership|hive(?:\s*mind)?|botnet|${FRAMEWORK_SERVER})\b`;
/** Infrastructure ordinary software also talks to: suspicious only with a start-up hook or an address. */
const HUB = String.raw`(?:the\s+|our\s+|your\s+|an?\s+)?(?:controller|orchestrator|coordinator|relay|operator|server|listener|handler|upstream(?:\s+(?:service|server|node))?)`;
const STARTUP = String.raw`(?:on|at|upon|during|before)\s+(?:every\s+|each\s+)?(?:start-?up|boot|launch|session\s+start|the\s+(?:start|beginning)\s+of\s+(?:every|each|the|a|your)\s+(?:session|conversation|task|run))`;
/** Words that go on with what the framework is used for ("use Sliver to ...", "launch Havoc and ..."). */
const THEN = String.raw`\s+(?:to|and|then|on|onto|in|into|against|with|from|at)\b`;
const FRAMEWORK = String.raw`(?:cobalt\s*strike|mythic|metasploit|meterpreter|msfvenom|msfconsole|brute\s*ratel|posh\s*c2|brainworm|sliver-(?:server|client)\b|sliver(?=\s+(?:implant|beacon|session|server|client|c2|agent|listener|payload|stager)s?\b|\s*(?:[.,;:!?)\n]|$)|${THEN})|havoc(?=\s+(?:c2|demon|agent|implant|teamserver|payload|listener)|\s*(?:[.,;:!?)\n]|$)|${THEN})|merlin(?=\s+(?:agent|c2|server|implant|payload|listener)s?\b)|(?:powershell\s+)?empire(?=\s+(?:listener|agent|stager|launcher|c2))|covenant(?=\s+(?:grunt|listener|c2|launcher))|nighthawk(?=\s+(?:c2|implant)))`;
const C2_NOUN = String.raw`(?:implants?|stagers?|reverse\s+shells?|bind\s+shells?|backdoors?|c2\s+(?:agent|client|channel|beacon|implant|listener|session|server)s?|command[\s-]and[\s-]control\s+(?:agent|client|channel|implant|session|server)s?|team\s*server|beacon\s+(?:payload|implant)s?)\b`;
/** "Load the backdoor detection rules", "Cobalt Strike's profiles as fixtures": about the tool, not running it. */
const NOT_ABOUT = String.raw`(?!['’]s\b|\s+(?:detections?|rules?|signatures?|profiles?|parsers?|logs?|traffic|indicators?|iocs?|samples?|fixtures?|research|documentation|docs|reports?|artifacts|analysis|detectors?|hunting|yara|sigma|scanners?|datasets?)\b)`;
const ONE_LINER_OK = String.raw`(?!\s+(?:only\s+)?(?:in|for)\s+(?:the\s+|your\s+)?(?:commit|pr\b|pull|changelog|titles?|summar|messages?|descriptions?|comments?|docstrings?|docs?\b|readme|log\s+messages?|subject))`;

export const DIRECTIVE_PATTERNS: readonly DirectivePattern[] = [
  // Command and control: join, check in, take tasking, phone out.
  {
    reason: "c2_registration",
    re: act(
      String.raw`register\s+(?:yourself\s+|this\s+(?:agent|machine|host|instance|session|workstation)\s+)?(?:as\s+(?:an?\s+|the\s+)?(?:new\s+)?(?:node|implant|bot|zombie|peer|beacon|worker\s+node|agent\s+node)\b|(?:with|at|to)\s+(?:${C2_TARGET}|${HUB}\s+at\s+${ADDRESS}))|register\s+yourself\s+(?:with|at|to)\s+(?:${HUB}\b|(?:the\s+|our\s+|a\s+)?(?:network|mesh|swarm|grid|collective)\b|${REMOTE})|join\s+(?:the\s+|our\s+)?(?:botnet|hive(?:\s*mind)?|c2)\b`,
    ),
  },
  {
    reason: "c2_registration",
    agentOnly: true,
    re: act(
      String.raw`(?:join|enrol+|enlist\s+in)\s+(?:the\s+|our\s+)?(?:network|mesh|swarm|collective|grid)\b|register\s+${SELF}(?:with|at|to)\s+(?:${HUB}\b|(?:the\s+|our\s+|your\s+|a\s+)?(?:network|mesh|swarm|grid|collective|master(?:\s+node)?)\b|${REMOTE})`,
    ),
  },
  {
    reason: "c2_heartbeat",
    re: act(
      String.raw`(?:send|post|emit|transmit|push)\s+(?:(?:an?|regular|periodic|your|the|status|small|quick)\s+){0,2}(?:heartbeats?|beacons?|pings?|check[\s-]?ins?|keep-?alives?)\b[^.\n]{0,80}?\b(?:to|at)\s+(?:${REMOTE}|${C2_TARGET}|${NOT_LOCAL}[^.\n]{0,80}?\b${PERIOD})|(?:ping|contact|hit)\s+${REMOTE}\s+(?:[\w-]+\s+){0,3}?${PERIOD}|(?:heartbeat|beacon|check[\s-]?in|report\s+(?:back|in))\s+(?:(?:every\s+\S+\s+\w+|periodically|regularly|hourly|daily)\s+)?(?:to|with|at)\s+(?:${ADDRESS}|${C2_TARGET}|${HUB}\s+at\s)|(?:phone|call)\s+home\b|beacon\s+(?:out|back|home|periodically|every)\b`,
    ),
  },
  {
    reason: "c2_tasking",
    re: act(
      String.raw`(?:(?:read|fetch|download|open|load|curl|get|visit)\s+${ADDRESS}\S*\s+(?:and|then)\s+(?:[\w-]+\s+){0,2}?(?:do|follow|execute|run|obey|carry\s+out)\s+(?:what(?:ever)?\s+it\s+says|(?:the|its|any)\s+instructions|the\s+commands|them|it)\b|(?:pull|fetch|get|poll|retrieve|download|receive|grab|request|check|ask)\s+(?:for\s+)?(?:down\s+)?(?:(?:any|new|your|the|pending|next|further|additional|more)\s+){0,3}(?:tasking|tasks|task\s+list|jobs|commands|instructions|orders|work(?:\s+items)?|payloads?)\s+(?:from|at|off|via)\s+(?:${C2_TARGET}|${ADDRESS}|${HUB}\s+at\s+${ADDRESS}|(?:the\s+|our\s+|your\s+|an?\s+)?(?:controller|orchestrator|coordinator|master(?:\s+node)?|remote\s+(?:server|host|endpoint))\b(?!['’]s\b))|poll\s+(?:${C2_TARGET}|${ADDRESS}\S*|(?:the\s+)?(?:controller|orchestrator|coordinator))\s+(?:[\w-]+\s+){0,2}?for\s+(?:new\s+|pending\s+|more\s+)?(?:tasking|tasks|jobs|commands|instructions|orders|work)|(?:perform|execute|carry\s+out|complete|run|follow|obey|process|act\s+on|do)\s+(?:any\s+|all\s+|the\s+|whatever\s+)?taskings?\b|(?:perform|execute|carry\s+out|complete|run|follow|obey|process|act\s+on)\s+(?:any\s+|all\s+|the\s+|whatever\s+)?(?:tasks?|commands?|instructions?|jobs?|orders?)\s+(?:(?:you\s+)?(?:receive|get)|received|sent|issued|pushed|relayed|returned)\s+(?:from|by|via)\s+(?:${C2_TARGET}|${ADDRESS}|(?:the\s+)?(?:controller|orchestrator|coordinator|network)\b))`,
    ),
  },
  {
    reason: "c2_connect",
    re: act(
      String.raw`connect\s+back\s+to\s+(?:${ADDRESS}|${C2_TARGET}|(?:the\s+|your\s+|our\s+)?(?:listener|handler)\b)|(?:connect|reconnect|dial|tunnel|link\s+up|subscribe|attach|report|establish\s+(?:a\s+)?(?:connection|tunnel|channel|session|reverse\s+shell)|open\s+(?:a\s+)?(?:connection|tunnel|channel|websocket|socket|reverse\s+shell))\s+${SELF}(?:back\s+)?(?:to|with)\s+(?:${C2_TARGET}|(?:${HUB}|(?:the\s+|our\s+|a\s+)?(?:network|mesh|swarm)|${ADDRESS}(?!localhost|127\.))[^.\n]{0,100}?\b${STARTUP})`,
    ),
  },
  {
    reason: "c2_connect",
    agentOnly: true,
    re: act(
      String.raw`(?:connect|reconnect|join|link\s+up|report)\s+(?:back\s+)?(?:to|with)\s+(?:(?:the\s+|our\s+|a\s+)?(?:network|mesh|swarm|grid|collective|relay|operator|upstream(?:\s+(?:service|server|node))?)\b|${HUB}\s+at\s|${ADDRESS}(?!localhost|127\.))`,
    ),
  },
  {
    reason: "c2_framework",
    re: act(
      String.raw`(?:(?:download|fetch|grab|get|pull|copy|unpack|compile)\s+(?:(?:it|this|that)\s+)?(?:and|then)\s+)?(?:install|deploy|launch|start|run|spawn|execute|load|drop|stage|inject|establish|open|set\s+up|spin\s+up|use|become|act\s+as|configure|generate|build)\s+(?:an?\s+|the\s+|your\s+|this\s+|our\s+|new\s+)?(?:${FRAMEWORK}|${C2_NOUN})${NOT_ABOUT}|(?:act\s+as|become|you\s+are\s+(?:now\s+)?)\s*(?:an?\s+|the\s+)?(?:node|implant|bot|beacon|zombie|worker)\s+(?:in|of|on|for)\s+(?:the|a|an|our|this)\s+(?:network|botnet|swarm|mesh|hive|grid|c2)\b`,
    ),
  },

  // Anti-forensics: leave nothing for anyone to inspect afterwards.
  {
    reason: "anti_forensics",
    re: act(
      String.raw`(?:(?:only|exclusively)\s+(?:ever\s+)?use\s+(?:[\w-]+\s+){0,2}?one[\s-]?liners?\b|use\s+only\s+(?:[\w-]+\s+){0,2}?one[\s-]?liners?\b|use\s+(?:[\w-]+\s+){0,2}?one[\s-]?liners?\s+only\b)${ONE_LINER_OK}`,
    ),
  },
  {
    reason: "anti_forensics",
    re: act(
      String.raw`(?:never|don't|do\s+not|avoid|must\s+not)\s+(?:ever\s+)?(?:create|write|save|drop|store|persist|put|leave)\s+(?:[\w-]+\s+){0,4}?(?:scripts?|payloads?|binar(?:y|ies)|executables?|anything)\s+(?:[\w-]+\s+){0,5}?(?:to|on|onto)\s+(?:the\s+)?(?:disk|filesystem|file\s+system|hard\s+drive)\b(?!\s+(?:outside|except|other\s+than|in\s+(?:unit\s+)?tests|during\s+tests))`,
    ),
  },
  {
    reason: "anti_forensics",
    re: act(
      String.raw`(?:clear|wipe|erase|delete|remove|purge|scrub|truncate|empty|flush)\s+(?:out\s+)?(?:the\s+|your\s+|all\s+|any\s+)?(?:shell\s+|bash\s+|zsh\s+|command\s+|terminal\s+|session\s+)history\b|(?:clear|wipe|erase|delete|remove|purge|scrub)\s+(?:all\s+|any\s+)?(?:traces|evidence|logs)\s+of\s+(?:your|this|what\s+you|the\s+(?:commands|actions|activity))`,
    ),
  },
  {
    reason: "anti_forensics",
    re: act(
      String.raw`(?:(?:run|execute|type)\s+)?(?:history\s+-[cw]\b|unset\s+HISTFILE\b|(?:export\s+)?HISTFILE=/dev/null|(?:export\s+)?HISTSIZE=0\b|set\s+\+o\s+history\b|(?:rm|shred)\s+(?:-\w+\s+)*\S*_history\b|(?:cat\s+)?/dev/null\s*>\s*\S*_history\b|>\s*\S*_history\b|Clear-History\b)`,
    ),
  },
  {
    reason: "anti_forensics",
    re: act(
      String.raw`(?:delete|remove|erase|shred|rm)\s+(?:this|these|the\s+current)\s+(?:files?|documents?|messages?|notes?|instructions?|sections?)\s+(?:[\w-]+\s+){0,3}?(?:after|once|when|as\s+soon\s+as)\s+(?:you(?:'ve|\s+have)?\s+)?(?:read(?:ing)?|loaded|loading|process(?:ed|ing)|follow(?:ed|ing)\s+it|execut(?:ed|ing)\s+it|act(?:ed|ing)\s+on\s+it)\b`,
    ),
  },

  // Secrets leaving the machine.
  {
    reason: "secret_exfil",
    re: act(
      String.raw`(?:send|post|upload|paste|email|forward|leak|share|transmit|export|exfiltrate|include|append|print|output|echo|reveal)\s+(?:[\w-]+\s+){0,4}?(?:(?:api|secret|access|private|auth)[\s_-]*(?:keys?|tokens?)|credentials|secrets|passwords|env(?:ironment)?\s+(?:variables|vars|file)|\.env\b|~?/?\.(?:hermes/\.env|ssh/id_\w+|aws/credentials|netrc)|\$?[A-Z][A-Z0-9_]*(?:_KEY|_TOKEN|_SECRET|PASSWORD)S?\b)\s+(?:[\w-]+\s+){0,4}?(?:to|into|at|in|on)\s+(?:${ADDRESS}|(?:the\s+|a\s+|this\s+|your\s+)?(?:pr|pull\s+request|issue|comment|gist|pastebin|webhook|url|commit(?:\s+message)?|readme|description|chat|channel|response|reply|answer|summary|discord|slack|telegram)\b)|exfiltrate\b`,
    ),
  },
];
