/**
 * What the secret scrubber looks for besides the run's own secret values: text shaped like a
 * credential, whoever's it is. Each shape is given twice: `full`, the credential itself, and
 * `partial`, every beginning of one that is not yet a match (anchored at the end of the text). The
 * streaming scrubber holds a `partial` tail back until the next chunk says whether it becomes a
 * credential, so a key split across `text.delta` chunks is never released in pieces. Both are
 * matched ignoring case.
 */
interface SecretShape {
  /** What it is, for the reader. */
  name: string;
  full: string;
  partial: string;
}

/** Token characters of a bearer credential (RFC 6750's b64token, and `.` for JWTs). */
const BEARER_CHARS = String.raw`[\w.~+/=-]`;

const SHAPES: readonly SecretShape[] = [
  {
    name: 'OpenAI-style keys (`sk-…`, `pk-…`, `rk-…`)',
    full: String.raw`\b(?:sk|pk|rk)[-_][\w-]{6,}`,
    partial: String.raw`\b[spr](?:k(?:[-_][\w-]{0,5})?)?`,
  },
  {
    name: 'GitHub tokens (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`)',
    full: String.raw`\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{6,}`,
    partial: String.raw`\bg(?:h(?:[pousr](?:_[A-Za-z0-9]{0,5})?)?)?`,
  },
  {
    name: 'GitHub fine-grained tokens (`github_pat_`)',
    full: String.raw`\bgithub_pat_\w{6,}`,
    partial: String.raw`\bg(?:i(?:t(?:h(?:u(?:b(?:_(?:p(?:a(?:t(?:_\w{0,5})?)?)?)?)?)?)?)?)?)?`,
  },
  {
    name: 'Slack tokens (`xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`)',
    full: String.raw`\bxox[abpr]-[\w-]{6,}`,
    partial: String.raw`\bx(?:o(?:x(?:[abpr](?:-[\w-]{0,5})?)?)?)?`,
  },
  {
    name: 'AWS access key ids',
    full: String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
    partial: String.raw`\bA(?:K(?:I(?:A[A-Z0-9]{0,16})?)?|S(?:I(?:A[A-Z0-9]{0,16})?)?)?`,
  },
  {
    name: '`Bearer …` credentials',
    full: String.raw`\bbearer\s+${BEARER_CHARS}{6,}`,
    partial: String.raw`\bb(?:e(?:a(?:r(?:e(?:r(?:\s+${BEARER_CHARS}{0,5})?)?)?)?)?)?`,
  },
  {
    name: 'JWTs',
    full: String.raw`\beyJ[\w-]{6,}\.[\w-]+\.[\w-]*`,
    // A JWT's first two segments may be long: held until a character ends them.
    partial: String.raw`\be(?:y(?:J[\w-]*(?:\.[\w-]*)?)?)?`,
  },
  {
    name: 'PEM private key blocks (to their end, or to the end of the text)',
    full: String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
    partial: String.raw`-(?:-(?:-(?:-(?:-(?:B(?:E(?:G(?:I(?:N(?: [A-Z ]*(?:-{1,4})?)?)?)?)?)?)?)?)?)?)?`,
  },
];

/** Every credential shape, as one alternation. */
export const SHAPES_SOURCE = SHAPES.map((shape) => shape.full).join('|');

/** Every beginning of a credential shape that is not one yet, each anchored at the end. */
export const PARTIAL_SHAPES_SOURCE = `(?:${SHAPES.map((shape) => shape.partial).join('|')})$`;

/**
 * Values shorter than this are not searched for: an 8-character floor keeps a short password or
 * an empty-ish header value ("none", "true") from blanking ordinary words all over a run's text.
 */
export const MIN_SECRET_LENGTH = 8;
