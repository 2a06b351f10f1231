import type { Rule } from "./rule.js";

/**
 * Text aimed at the model rather than the task: overriding its instructions, hiding things from
 * the user, fake system turns, hidden HTML, and switching the agent's safety checks off. The
 * prompt-injection screen of context files adds its wider vocabulary when it is handed in.
 */

const RE = (source: string, flags = "i"): RegExp => new RegExp(source, flags);

export const PROSE_RULES: readonly Rule[] = [
  {
    id: "inject_override_instructions",
    severity: "critical",
    category: "injection",
    description: "tells the model to ignore or replace its instructions",
    re: RE(
      String.raw`\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:(?:all|any|every|the|your|of|these|those)\s+){0,3}(?:previous|prior|above|earlier|preceding|original|system|developer|safety|existing|other)\s+(?:\w+\s+)?(?:instructions|prompts?|rules|guidelines|directives|messages|guardrails|policies|constraints)\b`,
    ),
    kind: "prose",
    quotable: true,
  },
  {
    id: "inject_role_takeover",
    severity: "critical",
    category: "injection",
    description: "tries to give the model a new identity or unrestricted mode",
    re: RE(
      String.raw`\byou\s+are\s+(?:now|no\s+longer)\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|have)\b|\bnew\s+(?:system\s+)?instructions\s*:|\b(?:developer|god|jailbreak|DAN)\s+mode\s+(?:enabled|on|activated)\b|\bact\s+as\s+(?:if\s+you\s+(?:have|had)\s+no\s+(?:restrictions|rules|limits)|an?\s+(?:unrestricted|unfiltered|jailbroken)\b)|\bpretend\s+(?:that\s+)?you\s+(?:have|are)\s+(?:no\s+(?:restrictions|rules|filters)|not\s+(?:bound|restricted))`,
    ),
    kind: "prose",
    quotable: true,
  },
  {
    id: "inject_hide_from_user",
    severity: "critical",
    category: "injection",
    description: "tells the model to hide what it does from the user",
    re: RE(
      String.raw`\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|let|notify|alert|warn)\s+(?:the\s+)?user\b(?![^.\n]{0,80}\b(?:unless|until|before|without\s+confirm))|\bwithout\s+(?:the\s+user|them)\s+(?:knowing|noticing|seeing)\b|\b(?:silently|secretly|covertly|quietly)\s+(?:send|upload|post|run|execute|install|delete|copy|forward|exfiltrate|add|append|download)\b|\bhide\s+(?:this|these|it|the\s+\w+)\s+from\s+the\s+user\b`,
    ),
    kind: "prose",
    quotable: true,
  },
  {
    id: "inject_fake_system_turn",
    severity: "high",
    category: "injection",
    description: "text dressed up as a system or developer message",
    re: RE(
      String.raw`<\|\s*(?:im_start|im_end|system|endoftext|start_header_id)\s*\|>|</?\s*(?:system|system_prompt|developer)\s*>|^\s*\[?(?:SYSTEM|ADMIN|DEVELOPER)\s*(?:MESSAGE|OVERRIDE|PROMPT|NOTE)?\]?\s*:\s+\S|\b(?:BEGIN|END)\s+SYSTEM\s+PROMPT\b`,
      "m",
    ),
  },
  {
    id: "inject_hidden_html",
    severity: "high",
    category: "injection",
    description: "HTML a reader does not see (display:none, zero size, white on white)",
    re: RE(
      String.raw`<\s*(?:div|span|p|section|font)\b[^>]{0,200}?style\s*=\s*["'][^"']{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.\d+)?(?:px|em|pt)?\s*[;"']|opacity\s*:\s*0(?:\.0+)?\s*[;"']|color\s*:\s*(?:white|#fff(?:fff)?)\b)`,
    ),
  },
  {
    id: "agent_safety_off",
    severity: "high",
    category: "injection",
    description: "switches the agent's approval or safety checks off",
    re: RE(
      String.raw`\bHERMES_YOLO_MODE\s*=\s*["']?(?:1|true|yes|on)\b|\bhermes\s+config\s+set\s+(?:approvals\.mode\s+off|security\.\w+\s+false|skills\.guard_agent_created\s+false)|\b(?:disable|turn\s+off|switch\s+off|bypass|skip)\s+(?:the\s+|all\s+|any\s+)?(?:command\s+)?(?:approval|confirmation|safety|security)\s+(?:prompts?|checks?|scan(?:ner)?s?|guards?)\b`,
    ),
  },
];

/** HTML comments whose body talks to the model (bodies are checked whole, across lines). */
export const COMMENT_ORDER = RE(
  String.raw`\b(?:ignore|disregard|override|assistant|the\s+agent|the\s+model|system\s+prompt|secretly|do\s+not\s+tell|exfiltrate|api\s+keys?|instructions?\s+for\s+(?:the\s+)?(?:ai|agent|model))\b`,
);
