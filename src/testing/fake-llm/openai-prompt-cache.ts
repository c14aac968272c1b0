/** The fake's token count: four characters a token, as its usage estimates. */
const CHARS_PER_TOKEN = 4;
/** OpenAI caches prompts of at least this many tokens. */
const MIN_CACHED_TOKENS = 1024;
/** Cache hits grow in steps of this many tokens past the first 1024. */
const CACHE_INCREMENT_TOKENS = 128;
/** Prompts remembered per model; enough for any test, bounded for a long-running mock server. */
const MAX_PROMPTS = 256;

/**
 * The fake's model of OpenAI's automatic prompt caching: a prompt of at least 1024 tokens whose
 * beginning repeats the beginning of a prompt the same model has been sent reports that prefix as
 * cached, in 128-token increments (1024, 1152, 1280, …), as OpenAI documents. Tokens are counted
 * the fake's way, four characters a token. Entries never expire while the server runs (OpenAI
 * keeps them minutes to hours); the oldest go once a model has more than `MAX_PROMPTS`.
 */
export class OpenAiPromptCache {
  readonly #prompts = new Map<string, string[]>();

  /**
   * The cached tokens of `prompt` sent to `model`, at most `promptTokens` (the prompt tokens the
   * answer reports), then remembers `prompt` for the requests after it.
   */
  read(model: string, prompt: string, promptTokens: number): number {
    const seen = this.#prompts.get(model) ?? [];
    let longest = 0;
    for (const earlier of seen) longest = Math.max(longest, commonPrefixLength(earlier, prompt));
    seen.push(prompt);
    if (seen.length > MAX_PROMPTS) seen.shift();
    this.#prompts.set(model, seen);
    return cacheIncrement(Math.min(Math.floor(longest / CHARS_PER_TOKEN), promptTokens));
  }
}

/** `tokens` of matching prefix as OpenAI reports them: 0 under 1024, else down to 1024 + 128·n. */
export function cacheIncrement(tokens: number): number {
  if (tokens < MIN_CACHED_TOKENS) return 0;
  const extra = tokens - MIN_CACHED_TOKENS;
  return MIN_CACHED_TOKENS + extra - (extra % CACHE_INCREMENT_TOKENS);
}

function commonPrefixLength(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let at = 0;
  while (at < end && a.charCodeAt(at) === b.charCodeAt(at)) at += 1;
  return at;
}
