import { describe, expect, it } from 'vitest';
import type { TrifectaTag } from '../../../src/protocol/index.js';
import {
  EXEC_TRIFECTA_TAGS,
  checkTrifecta,
  effectiveServerTags,
} from '../../../src/tools/index.js';

const server = (name: string, ...tags: TrifectaTag[]) => ({ name, tags });
const exec = { name: 'exec', tags: EXEC_TRIFECTA_TAGS };

describe('checkTrifecta', () => {
  it('refuses all three legs together, naming the servers behind each', () => {
    const check = checkTrifecta(
      [server('web', 'untrusted_input', 'egress'), server('db', 'sensitive')],
      { allow: false },
    );
    expect(check).toEqual({
      ok: false,
      legs: { untrusted_input: ['web'], sensitive: ['db'], egress: ['web'] },
      message:
        'holding untrusted_input (web), sensitive (db) and egress (web) together is refused; set security.allow_trifecta (or pass `--allow-trifecta`) to allow it',
    });
  });

  it('tells a newcomer with an untagged server and exec to tag it or narrow exec first', () => {
    const check = checkTrifecta([server('files')], { allow: false, extraTags: [exec] });
    expect(check.ok).toBe(false);
    const message = check.ok ? '' : check.message;
    expect(message).toContain('tag files with what it does');
    expect(message).toContain('`--mcp-tags files=sensitive`');
    expect(message).toContain('narrow `exec` to the commands the agent needs');
    expect(message).toMatch(
      /; or set security\.allow_trifecta \(or pass `--allow-trifecta`\) to allow it$/,
    );
    expect(message.indexOf('--mcp-tags')).toBeLessThan(message.indexOf('allow_trifecta'));
  });

  it('allows the same set when the operator allows it, and says so', () => {
    const check = checkTrifecta(
      [server('web', 'untrusted_input', 'egress'), server('db', 'sensitive')],
      { allow: true },
    );
    expect(check).toMatchObject({ ok: true, allowed: true });
  });

  it.each<[string, { name: string; tags: TrifectaTag[] }[]]>([
    ['two legs', [server('web', 'untrusted_input', 'egress')]],
    ['no servers', []],
    ['sensitive and egress only', [server('db', 'sensitive'), server('mail', 'egress')]],
  ])('holds with %s', (_what, servers) => {
    expect(checkTrifecta(servers, { allow: false })).toMatchObject({ ok: true, allowed: false });
  });

  it('counts an untagged server as untrusted_input', () => {
    expect(effectiveServerTags([])).toEqual(['untrusted_input']);
    const check = checkTrifecta(
      [server('notes'), server('db', 'sensitive'), server('mail', 'egress')],
      { allow: false },
    );
    expect(check.ok).toBe(false);
    if (!check.ok)
      expect(check.message).toMatch(
        /^holding untrusted_input \(notes: untagged\), sensitive \(db\)/,
      );
  });

  it('exec brings sensitive and egress: one untrusted server with exec is refused', () => {
    const check = checkTrifecta([server('web', 'untrusted_input')], {
      allow: false,
      extraTags: [exec],
    });
    expect(check).toMatchObject({
      ok: false,
      legs: { untrusted_input: ['web'], sensitive: ['exec'], egress: ['exec'] },
    });
    // Without exec the same server is fine; exec alone is not untrusted input.
    expect(checkTrifecta([server('web', 'untrusted_input')], { allow: false }).ok).toBe(true);
    expect(checkTrifecta([], { allow: false, extraTags: [exec] }).ok).toBe(true);
  });

  it('an extra source with no tags brings nothing (untagged means untrusted only for servers)', () => {
    const check = checkTrifecta([server('db', 'sensitive', 'egress')], {
      allow: false,
      extraTags: [{ name: 'fs', tags: [] }],
    });
    expect(check.ok).toBe(true);
  });
});
