import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';
import { serveProcess } from '../helpers/serve.js';

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

  it('refuses a state directory inside the working directory, where agents could read the token', async () => {
    const cwd = dir();
    const run = await runArbor(['serve', ...MODEL, '--listen', '127.0.0.1:0'], {
      cwd,
      env: { ARBOR_STATE_DIR: join(cwd, 'state') },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(
      /The operator token would be written to \S+, inside the working directory \(\S+\), where the agents it serves could read it: set ARBOR_STATE_DIR/,
    );
    expect(existsSync(join(cwd, 'state'))).toBe(false);
  });

  it('names a trigger with two schedules, a principal whose token is not set, and a bad cron', async () => {
    const twice = config(
      '[[serve.trigger]]\nname = "t"\ninstruction = "x"\nevery = "1m"\ncron = "* * * * *"\n',
    );
    const run = await runArbor(['serve', ...MODEL, '--config', twice.path], {
      cwd: twice.cwd,
      env: STATE,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/exactly one of `every`, `cron` or `mcp_resource`/);

    const unset = config(
      '[[serve.principal]]\nname = "ci"\nrole = "user"\ntoken = "env:ARBOR_TEST_UNSET_TOKEN"\n',
    );
    const noToken = await runArbor(
      ['serve', ...MODEL, '--listen', '127.0.0.1:0', '--config', unset.path],
      { cwd: unset.cwd, env: STATE },
    );
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(
      /`\[\[serve\.principal\]\]` `ci`: `ARBOR_TEST_UNSET_TOKEN` is not set/,
    );

    const cron = config(
      '[[serve.trigger]]\nname = "nightly"\ninstruction = "x"\ncron = "at midnight"\n',
    );
    const badCron = await runArbor(
      ['serve', ...MODEL, '--listen', '127.0.0.1:0', '--config', cron.path],
      { cwd: cron.cwd, env: STATE },
    );
    expect(badCron.code).toBe(2);
    expect(badCron.stderr).toMatch(/\[\[serve\.trigger\]\] nightly: cron `at midnight`/);
  });
});

describe('arbor serve: the operator token', () => {
  it('is written outside every workspace, 0600 in a 0700 directory, one file per store', async () => {
    const state = mkdtempSync(join(tmpdir(), 'arbor-state-'));
    const cwd = dir();
    const started = (db: string) =>
      serveProcess([...MODEL, '--db', db], { cwd, env: { ARBOR_STATE_DIR: state } });
    const first = await started(join(cwd, 'one.db'));
    const written = /operator token \(written to ([^)]+)\)/.exec(first.proc.stderr)?.[1] ?? '';
    expect(written).toMatch(new RegExp(`^${state}/serve-tokens/[0-9a-f]{16}$`));
    expect(readFileSync(written, 'utf8')).toBe(`${first.token}\n`);
    expect(statSync(written).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(written)).mode & 0o777).toBe(0o700);
    // Nothing beside the store, nor in the working directory's .arbor.
    expect(existsSync(join(cwd, 'serve-token'))).toBe(false);
    expect(existsSync(join(cwd, '.arbor', 'serve-token'))).toBe(false);
    // Another store, another file; the token of the first is left as it was.
    const second = await started(join(cwd, 'two.db'));
    const other = /operator token \(written to ([^)]+)\)/.exec(second.proc.stderr)?.[1] ?? '';
    expect(other).not.toBe(written);
    expect(readFileSync(written, 'utf8')).toBe(`${first.token}\n`);
    expect(readFileSync(other, 'utf8')).toBe(`${second.token}\n`);
  });
});
