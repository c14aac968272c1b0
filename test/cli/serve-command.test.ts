import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'arbor-serve-cli-'));
}

/** A config file in a fresh directory. */
function config(text: string): { cwd: string; path: string } {
  const cwd = dir();
  const path = join(cwd, 'arbor.toml');
  writeFileSync(path, text);
  return { cwd, path };
}

const MODEL = ['--intel', 'http://127.0.0.1:9/v1', '--model', 'm'];
const CERT = fileURLToPath(new URL('../fixtures/tls/cert.pem', import.meta.url));
const KEY = fileURLToPath(new URL('../fixtures/tls/key.pem', import.meta.url));

/** A state directory of its own, so no test writes a token into the home of whoever runs it. */
const STATE = { ARBOR_STATE_DIR: mkdtempSync(join(tmpdir(), 'arbor-state-')) };

/** A file of `text` in a fresh directory. */
function file(name: string, text: string): string {
  const path = join(dir(), name);
  writeFileSync(path, text);
  return path;
}

/** A PEM private key that belongs to no certificate of ours. */
const OTHER_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

describe('arbor serve: bad input is refused before anything listens (exit 2)', () => {
  it('prints its usage with --help', async () => {
    const run = await runArbor(['serve', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: arbor serve \[options\]/);
    expect((await runArbor(['--help'])).stdout).toMatch(/serve {2,}a long-lived service/);
  });

  it.each([
    [['--listen', 'nope'], /--listen: expected HOST:PORT such as 127\.0\.0\.1:7700, got `nope`/],
    [['--listen', '127.0.0.1:99999'], /--listen: expected HOST:PORT/],
    [['--tls-cert', 'cert.pem'], /--tls-cert and --tls-key go together/],
    [
      ['--tls-cert', 'missing.pem', '--tls-key', 'missing.pem'],
      /--tls-cert: cannot read missing\.pem: ENOENT/,
    ],
    [['Do something'], /`arbor serve` takes no instruction \(tasks come over A2A\)/],
    [
      ['--listen', '0.0.0.0:0'],
      /refuses to listen on 0\.0\.0\.0, which is not a loopback address, without `\[\[serve\.principal\]\]`/,
    ],
    [['--drain-timeout', 'soon'], /--drain-timeout/],
    [
      ['--drain-timeout', '-5s'],
      /Expected `--drain-timeout` to be a duration such as .*, got `-5s`\./,
    ],
    [
      ['--tls-cert', file('cert.txt', 'not a certificate\n'), '--tls-key', KEY],
      /--tls-cert: \S+cert\.txt is not a PEM certificate \(.+\); expected a file that starts with -----BEGIN CERTIFICATE-----\./,
    ],
    [
      ['--tls-cert', CERT, '--tls-key', CERT],
      /--tls-key: \S+cert\.pem is not an unencrypted PEM private key \(.+\); expected a file that starts with -----BEGIN PRIVATE KEY-----/,
    ],
    [
      ['--tls-cert', CERT, '--tls-key', file('other.pem', OTHER_KEY)],
      /--tls-key: the key in \S+other\.pem does not belong to the certificate in \S+cert\.pem\./,
    ],
  ])('%j', async (args, message) => {
    const run = await runArbor(['serve', ...MODEL, ...args], { cwd: dir(), env: STATE });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it.each([
    [
      'ftp://',
      'on_gate = { url = "ftp://hooks.example.com/gate" }',
      /`serve\.on_gate\.url`: only http: and https: URLs are called, not `ftp:`/,
    ],
    [
      'the cloud metadata address',
      'on_gate = { url = "http://169.254.169.254/latest/meta-data" }',
      /`serve\.on_gate\.url`: 169\.254\.169\.254 resolves to a link-local address \(cloud metadata/,
    ],
    [
      'loopback written as IPv6',
      'on_gate = { url = "http://[::127.0.0.1]:9000/gate" }',
      /`serve\.on_gate\.url`: ::7f00:1 resolves to an IPv4-compatible address/,
    ],
    [
      'a name that resolves to loopback, found at start',
      'on_gate = { url = "http://localhost:9000/gate" }',
      /`\[serve\] on_gate\.url` \(http:\/\/localhost:9000\/gate\) cannot be called: localhost resolves to a loopback address; only a `\[serve\] webhook_allow` entry naming it allows that\./,
    ],
  ])('refuses an on_gate webhook to %s before listening', async (_name, line, message) => {
    const bad = config(`[serve]\n${line}\n`);
    const run = await runArbor(
      ['serve', ...MODEL, '--listen', '127.0.0.1:0', '--config', bad.path],
      {
        cwd: bad.cwd,
        env: STATE,
      },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/serving A2A/);
  });
});
