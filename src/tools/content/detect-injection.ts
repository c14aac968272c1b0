/**
 * A detector for likely prompt injections in untrusted content: instructions aimed at the model,
 * role and tool-call markup, the "ignore previous instructions" families, requests to exfiltrate
 * secrets, and hidden Unicode (tag characters, zero-width runs, bidirectional overrides). It only
 * flags: the content is still delivered, inside its boundary, never rewritten. Regular expressions
 * are defence in depth, not a boundary: the boundary, the runtime trifecta and the sandbox are.
 * `bench/detector.ts` measures it over a corpus of public injections and benign texts.
 */

/** One rule: an id for events and policy, and what it looks for. */
interface Rule {
  id: string;
  /** Matched against the normalized, lower-cased text. */
  normalized?: RegExp;
  /** Matched against the raw text (markup is case- and layout-sensitive). */
  raw?: RegExp;
}

/** A gap within one line of text: bounded, so a rule cannot reach across a whole document. */
const W = String.raw`[^!?\n]`;

/** Names and kinds of model an injection addresses. */
const MODEL = String.raw`(ai|a\.i\.|llms?|language models?|ai (agents?|assistants?|models?|systems?)|automated (agents?|assistants?|systems?|reviewers?|screening systems?|tools?)|chatgpt|gpt(-?\d)?|claude|bing|bard|gemini|copilot|cursor|comet|computer)`;

/** Words that open an instruction aimed at whoever reads the text. */
const DIRECTIVE = String.raw`(when|whenever|if|before|after|to|from now|always|never|please|you|do|don't|ignore|include|say|tell|first|make sure|remember)`;

/** Query parameters an exfiltrating image URL names its payload with. */
const EXFIL_PARAMS =
  'data|msg|message|text|content|chat|history|summary|info|param|words|conv|conversation|email|mem';
/** Query parameters named for a secret: suspicious in any link. */
const SECRET_PARAMS = 'secret|token|key|api_?key|password|pass|cookie|session|creds?|mfa|otp';

const RULES: readonly Rule[] = [
  {
    id: 'ignore-previous',
    normalized: new RegExp(
      [
        String.raw`\b(ignore|disregard|forget|override|bypass|overrule|abandon|discard)\b${W}{0,40}?\b(previous|prior|above|earlier|preceding|foregoing|all|any|your|these|those|initial|original|system|developer|safety)\b${W}{0,30}?\b(instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|context|commands?|constraints|programming|orders|policies)\b`,
        String.raw`\b(ignore|disregard|forget)\s+(all of |everything |what is |what's )?(the )?(above|previous|preceding|prior)\b(?!\s+(warning|warnings|error|errors|output|step|steps|section|email|e-mail|message|paragraph|comment|note|version|line|lines|result|results|figure|table|example|code)\b)`,
        String.raw`\b(ignore|disregard)\s+(the\s+)?(user|human|customer|operator)('?s)?\s+(question|request|instructions?|query|message|prompt|task)\b`,
        String.raw`\binstead of (translating|summari[sz]ing|answering|responding|doing (that|this|what))\b`,
        String.raw`\bdo not (describe|summari[sz]e|translate|read out) this\b`,
      ].join('|'),
    ),
  },
  {
    id: 'new-instructions',
    normalized: new RegExp(
      [
        String.raw`\b(new|updated|revised|real|actual|true|additional|secret|hidden|override)\s+(instructions?|directives?|system prompt|orders|objective|task)\b\s*(:|-|\*|!|are\b|is\b)`,
        String.raw`\bfrom now on\b${W}{0,20}\byou\b`,
        String.raw`\byour (new|real|actual|true) (task|goal|objective|instructions?|purpose|job) (is|are|now)\b`,
        String.raw`\bupdate your (behaviou?r|rules|guidelines|instructions|policy)\b`,
        String.raw`\bremember (this|the following|that)\b${W}{0,40}?\b(all|every) future\b`,
      ].join('|'),
    ),
  },
  {
    id: 'role-reassignment',
    normalized: new RegExp(
      [
        String.raw`\byou are (now|no longer)\b`,
        String.raw`\byou are an? (ai|llm|large language model|language model|ai agent|ai assistant)\b${W}{0,40}\b(your|with access)\b`,
        String.raw`\bact as (if you|an? (unrestricted|unfiltered|different)|dan\b)`,
        String.raw`\b(act|answer|respond|behave) as\b${W}{0,40}\b(chatbot|ai|bot|persona)\b${W}{0,40}\b(never refuses|no (principles|guidelines|rules|filters|restrictions|ethics)|unfiltered|amoral|uncensored)\b`,
        String.raw`\bsimulate an? (chatbot|ai|assistant|persona)\b`,
        String.raw`\bpretend (to be|you are|that you are) (an? |the )?(ai|assistant|chatbot|model|system|administrator|admin|developer)\b`,
        String.raw`\brole-?play as\b`,
        String.raw`\byour new (role|persona|name|identity) is\b`,
        String.raw`\benter (developer|god|admin|debug) mode\b`,
      ].join('|'),
    ),
  },
  {
    id: 'prompt-leak',
    normalized: new RegExp(
      [
        String.raw`\b(reveal|print|show|repeat|output|display|leak|dump|recite|spell out)\b${W}{0,40}?\b(system prompt|initial prompt|hidden prompt|developer message|hidden configuration|your (instructions|prompt|system message|rules|guidelines|configuration))\b`,
        String.raw`\brepeat (the|all( the)?) (words|text|lines|sentences|instructions|messages) (above|before)\b`,
        String.raw`\b(spell out|reveal|tell me|give me|print|repeat|what is)\b${W}{0,20}\b(the|your) (password|passphrase|api key|secret key|access code)\b`,
      ].join('|'),
    ),
  },
  {
    id: 'jailbreak',
    normalized:
      /\b(do anything now|developer mode (enabled|on)|jailbreak(ed|ing)?|god mode|without any (restrictions|limitations|filters)|no (ethical|moral) (guidelines|restrictions)|unrestricted (ai|assistant|bot|model|mode)|uncensored (outputs?|answers?|responses?|mode|ai)|no special (filtering|filters)|unfiltered and amoral|never refuses)\b|\bdan mode\b/,
  },
  {
    id: 'model-addressing',
    normalized: new RegExp(
      [
        String.raw`\b(hi|hey|hello|dear|attention|ok|okay)\s+${MODEL}\s*[.,:!;-]`,
        String.raw`\b(note|message|instructions?|attention|notice|reminder|p\.?s\.?)\s+(to|for)\s+(the\s+|any\s+|all\s+)?([\w'-]+\s+){0,2}?${MODEL}\b`,
        String.raw`\b(note|message|instructions?)\s+(to|for)\s+(the\s+)?(assistant|agent|bot|model)s?\b${W}{0,30}:`,
        String.raw`\bto you,?\s+(the\s+)?(ai|assistant|ai agent|agent|llm|model)\b`,
        String.raw`\byou,?\s+${MODEL},`,
        String.raw`\bif you are an? (ai|llm|large language model|language model|assistant|ai agent|automated (agent|assistant|system))\b`,
        String.raw`(^|[\s#/*>(-])(ai|llm) (assistant|agent|model)s?\s*:`,
        String.raw`(^|[\s#/*>(-])${MODEL}\s*[:,]\s*${DIRECTIVE}\b`,
        String.raw`(^|[\s#/*>(-])(assistant|agent)\s*[:,]\s*(when|whenever|if|before|from now|always|never|please|you (must|should|will))\b`,
        String.raw`\b(ai|llm|assistant|agent|bot)( models?| agents?| assistants?| systems?)?\s+(answering|reading|processing|summari[sz]ing|parsing|browsing|reviewing)\b${W}{0,30}\b(this|these)\b`,
        String.raw`\bwhen (summari[sz]ing|reading|processing|translating|reviewing) this (page|document|transcript|email|e-mail|file|text|message|issue|review)\b`,
        String.raw`\b(message|this) is directed at\s+${MODEL}\b`,
        String.raw`\bai injection\b`,
      ].join('|'),
    ),
  },
  {
    id: 'concealment',
    normalized:
      /\b(do not|don't|never|without)\s+(mention(ing)?|tell(ing)?|inform(ing)?|alert(ing)?|notify(ing)?|flag(ging)?)\s+(this|these|it|that|the user|the human|the operator|anyone about this)\b|\bwithout (asking|confirmation|approval|review|telling)( the user| anyone)?\b(?! (is|are|isn't|aren't) )/,
  },
  {
    id: 'exfiltration',
    normalized: new RegExp(
      [
        String.raw`\b(send|post|upload|forward|e-?mail|transmit|exfiltrate|leak|paste|append|include)\b${W}{0,60}?(\b(api[ _-]?keys?|passwords?|credentials?|secrets?|access tokens?|auth tokens?|ssh keys?|private keys?|session cookies?|cookies|conversation history|chat history|previous messages|system prompt|credit card( information| numbers?)?)\b|(^|[\s(])\.env\b)${W}{0,60}?\b(to|into|at|via)\b`,
        String.raw`\b(take|extract|collect|gather|find|copy)\b${W}{0,40}?\b(sensitive|secret|confidential|personal|private)\b${W}{0,40}?\b(from|in)\b${W}{0,15}?\b(the )?(document|context|conversation|chat|previous messages|memory|e-?mails?|inbox)\b`,
        String.raw`\bask the user for (their|his|her) (username|password|credentials|card)`,
      ].join('|'),
    ),
  },
  {
    id: 'encoded-payload',
    normalized: new RegExp(
      String.raw`\b(decode|decrypt|base64|rot13|unscramble)\b${W}{0,50}?\b(follow|execute|obey|do what)\b${W}{0,20}?\b(instructions?|it says|commands?)\b`,
    ),
  },
  {
    id: 'role-markup',
    raw: /<\|(im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id)\|>|<\/?(system|assistant|user|tool_result|function_results|function_calls|system-reminder|instructions|important|admin|administrator)>|\[\/?INST\]|<<\/?SYS>>|\[(system|assistant)\]\(#|"role"\s*:\s*"(system|developer)"/i,
  },
  {
    id: 'tool-call-markup',
    raw: /<(tool_call|function_call|invoke|tool_code)\b|<\/?antml:|"tool_calls"\s*:|"function_call"\s*:|\{\s*"(name|tool)"\s*:\s*"[\w.-]+"\s*,\s*"(arguments|parameters|args|input)"\s*:/i,
  },
  {
    // An image or link whose URL carries data out: an image (fetched as soon as it is shown)
    // with a query parameter named for data, a link with one named for a secret, or either with
    // a placeholder the model is told to fill. Badges (`?style=flat`), sized or compressed images
    // (`?w=1200&q=80`) and search links (`?q=`) are left alone: they are everywhere.
    id: 'markdown-exfil',
    raw: new RegExp(
      [
        String.raw`(!\[[^\]]*\]\(|<img\b[^>]*\bsrc\s*=\s*["']?)\s*https?://[^)"'>\s]*[?&](${EXFIL_PARAMS}|${SECRET_PARAMS})=`,
        String.raw`\[[^\]]*\]\(\s*https?://[^)\s]*[?&](${SECRET_PARAMS})=`,
        String.raw`(!\[[^\]]*\]\(|<img\b[^>]*\bsrc\s*=\s*["']?|\[[^\]]*\]\()\s*https?://[^)"'>\s]*[\[{<$]([A-Z_]{3,}|[a-z_]*(data|history|summary|secret|token|key|info)[a-z_]*)[\]}>]?`,
      ].join('|'),
      'i',
    ),
  },
];

/** Characters that hide text from a person reading the page. */
const TAG_CHARS = /[\u{E0000}-\u{E007F}]/gu;
const ZERO_WIDTH_RUN = /[\u200B-\u200D\u2060\uFEFF\u180E]{2,}/u;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u180E\u00AD]/gu;
const BIDI_OVERRIDE = /[\u202A-\u202E\u2066-\u2069]/u;

/** Longest text scanned, in characters: the rest is not looked at (the boundary still holds it). */
const MAX_SCANNED_CHARS = 200_000;

/** Which rules fired on `text`, in rule order; empty when nothing looks like an injection. */
export function detectInjection(text: string): string[] {
  const raw = text.length > MAX_SCANNED_CHARS ? text.slice(0, MAX_SCANNED_CHARS) : text;
  const fired = new Set<string>();
  const hidden = decodeTagCharacters(raw);
  if (hidden !== '' || ZERO_WIDTH_RUN.test(raw) || BIDI_OVERRIDE.test(raw))
    fired.add('hidden-unicode');
  // Scanned as a reader of the page would not see it: hidden text decoded, invisible characters
  // removed, compatibility forms folded (full-width letters, ligatures), white space collapsed.
  const visible = raw.replace(TAG_CHARS, '').replace(ZERO_WIDTH, '');
  const normalized = `${visible}\n${hidden}`.normalize('NFKC').replace(/\s+/g, ' ').toLowerCase();
  const rawScan = `${visible}\n${hidden}`;
  for (const rule of RULES) {
    if (rule.normalized?.test(normalized) === true || rule.raw?.test(rawScan) === true)
      fired.add(rule.id);
  }
  return [...fired].sort((a, b) => order(a) - order(b));
}

/** Every rule id the detector may report. */
export const DETECTOR_RULES: readonly string[] = [
  'hidden-unicode',
  ...RULES.map((rule) => rule.id),
];

function order(id: string): number {
  return DETECTOR_RULES.indexOf(id);
}

/** Unicode tag characters spell ASCII invisibly (U+E0020–U+E007E ↦ 0x20–0x7E). */
function decodeTagCharacters(text: string): string {
  let out = '';
  for (const match of text.matchAll(TAG_CHARS)) {
    const code = (match[0].codePointAt(0) ?? 0) - 0xe0000;
    if (code >= 0x20 && code <= 0x7e) out += String.fromCharCode(code);
  }
  return out;
}
