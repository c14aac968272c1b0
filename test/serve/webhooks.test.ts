import { describe, expect, it } from 'vitest';
import { checkOnGate, Webhooks } from '../../src/serve/webhooks.js';

describe('the URLs arbor serve calls out to (push notifications, on_gate)', () => {
  it.each([
    [
      'http://[::127.0.0.1]:9000/hook',
      'an IPv4-compatible address (deprecated; it embeds 127.0.0.1)',
    ],
    ['http://[::7f00:1]:9000/hook', 'an IPv4-compatible address (deprecated; it embeds 127.0.0.1)'],
    [
      'http://[0:0:0:0:0:0:127.0.0.1]/',
      'an IPv4-compatible address (deprecated; it embeds 127.0.0.1)',
    ],
    ['http://[::a9fe:a9fe]/latest/meta-data', 'it embeds 169.254.169.254'],
    ['http://[::ffff:127.0.0.1]/', 'a loopback address'],
    ['http://[::ffff:a9fe:a9fe]/', 'a link-local address (cloud metadata'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'a NAT64 address'],
    ['http://169.254.169.254/latest/meta-data', 'a link-local address (cloud metadata'],
    ['http://localhost:9000/hook', 'localhost resolves to a loopback address'],
    ['ftp://hooks.example.com/', 'only http: and https: URLs are called, not `ftp:`'],
    ['https://u:p@hooks.example.com/', 'a URL with a user name or password in it is not called'],
  ])('refuses %s', async (url, words) => {
    expect(await new Webhooks([], () => undefined).check(url)).toContain(words);
  });

  it('calls a special address that webhook_allow names exactly', async () => {
    const hooks = new Webhooks(['[::7f00:1]:9000', 'localhost'], () => undefined);
    expect(await hooks.check('http://[::127.0.0.1]:9000/hook')).toBeUndefined();
    expect(await hooks.check('http://localhost:9000/hook')).toBeUndefined();
  });
});

describe('checkOnGate: [serve] on_gate is checked when the server starts', () => {
  it.each([
    [
      'http://localhost:9/gate',
      /^`\[serve\] on_gate\.url` \(http:\/\/localhost:9\/gate\) cannot be called: localhost resolves to a loopback address; only a `\[serve\] webhook_allow` entry naming it allows that\.$/,
    ],
    ['http://[::a9fe:a9fe]/gate?token=secret', /cannot be called: .*embeds 169\.254\.169\.254/],
  ])('refuses %s, naming the key and never the query', async (url, message) => {
    const start = checkOnGate({ on_gate: { url } }, () => undefined);
    await expect(start).rejects.toMatchObject({ code: 'config' });
    await expect(start).rejects.toThrow(message);
    await expect(start).rejects.not.toThrow(/secret/);
  });

  it('takes an allowed one, and only warns about a name that does not resolve now', async () => {
    await expect(
      checkOnGate(
        { on_gate: { url: 'http://localhost:9/gate' }, webhook_allow: ['localhost'] },
        () => undefined,
      ),
    ).resolves.toBeUndefined();
    const warnings: string[] = [];
    await checkOnGate({ on_gate: { url: 'https://hooks.invalid/gate' } }, (line) =>
      warnings.push(line),
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^`\[serve\] on_gate\.url`: hooks\.invalid could not be resolved \([^)]+\); it is tried again at each delivery$/,
      ),
    ]);
  });
});
