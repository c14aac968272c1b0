import { describe, expect, it } from 'vitest';
import { looksSecret, REDACTED, scrubSecrets } from '../../src/protocol/index.js';

describe('scrubSecrets: the one scrubber', () => {
  it.each([
    ['an OpenAI-style key', 'Incorrect API key provided: sk-proj-abcdef123456'],
    ['a GitHub personal token', 'token ghp_0123456789abcdefABCDEF0123456789abcd'],
    ['a GitHub OAuth token', 'gho_0123456789abcdefABCDEF'],
    ['a GitHub app token', 'ghs_0123456789abcdefABCDEF'],
    ['a GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdef'],
    ['a Slack bot token', 'xoxb-123456789012-abcdefghijkl'],
    ['an AWS access key id', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE'],
    ['a bearer credential', 'Authorization: Bearer abc.def-ghi_jkl'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'],
    [
      'a PEM private key',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
    ],
  ])('removes %s', (_, text) => {
    expect(looksSecret(text)).toBe(true);
    const out = scrubSecrets(text);
    expect(out).toContain(REDACTED);
    expect(looksSecret(out)).toBe(false);
  });

  it('removes every known secret value verbatim, however it is shaped', () => {
    expect(scrubSecrets('the password is hunter2-horse', ['hunter2-horse'])).toBe(
      `the password is ${REDACTED}`,
    );
  });

  it('leaves ordinary text alone, and ignores known values too short to search for', () => {
    const text = 'skip the tasks; ask for a key; ghost_story.txt; risk-free';
    expect(looksSecret(text)).toBe(false);
    expect(scrubSecrets(text, ['ab'])).toBe(text);
  });
});
