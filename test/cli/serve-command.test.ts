import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  ])('%j', async (args, message) => {
    const run = await runArbor(['serve', ...MODEL, ...args], { cwd: dir() });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('names a trigger with two schedules, a principal whose token is not set, and a bad cron', async () => {
    const twice = config(
      '[[serve.trigger]]\nname = "t"\ninstruction = "x"\nevery = "1m"\ncron = "* * * * *"\n',
    );
    const run = await runArbor(['serve', ...MODEL, '--config', twice.path], { cwd: twice.cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/exactly one of `every`, `cron` or `mcp_resource`/);

    const unset = config(
      '[[serve.principal]]\nname = "ci"\nrole = "user"\ntoken = "env:ARBOR_TEST_UNSET_TOKEN"\n',
    );
    const noToken = await runArbor(
      ['serve', ...MODEL, '--listen', '127.0.0.1:0', '--config', unset.path],
      {
        cwd: unset.cwd,
      },
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
      {
        cwd: cron.cwd,
      },
    );
    expect(badCron.code).toBe(2);
    expect(badCron.stderr).toMatch(/\[\[serve\.trigger\]\] nightly: cron `at midnight`/);
  });
});
