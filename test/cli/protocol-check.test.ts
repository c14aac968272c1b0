import { describe, expect, it } from 'vitest';
import { invalidFixtures, validFixtures } from '../helpers/protocol-fixtures.js';
import { runArbor } from '../helpers/run-arbor.js';

const valid = validFixtures();
const invalid = invalidFixtures();

describe('arbor protocol check', () => {
  it('says ok for every golden frame and exits 0', async () => {
    const run = await runArbor(['protocol', 'check'], {
      input: Buffer.concat(valid.map((f) => f.bytes)),
    });
    expect(run.stdout.trimEnd().split('\n')).toEqual(valid.map((f) => `ok ${f.type}`));
    expect(run.code).toBe(0);
  });

  it.each(['any', 'up', 'down'] as const)(
    'gives the right verdict for every negative frame (%s direction) and exits 1',
    async (direction) => {
      const fixtures = invalid.filter((f) => (f.direction ?? 'any') === direction);
      const args = direction === 'any' ? [] : ['--direction', direction];
      const run = await runArbor(['protocol', 'check', ...args], {
        input: Buffer.concat(fixtures.map((f) => f.bytes)),
      });
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(fixtures.length);
      fixtures.forEach((fixture, i) => {
        expect(lines[i], fixture.name).toMatch(
          new RegExp(`^error ${fixture.code} at line ${i + 1}: `),
        );
        expect(lines[i], fixture.name).toContain(fixture.reason);
      });
      expect(run.code).toBe(1);
    },
  );

  it('prints one verdict per non-empty line, in order, across good and bad lines', async () => {
    const input = [
      '{"type":"ping","seq":1}',
      '',
      '{"type":"pong"}',
      '   ',
      'garbage',
      '{"type":"pause"}\r',
      '',
    ].join('\n');
    const run = await runArbor(['protocol', 'check'], { input });
    expect(run.stdout.split('\n')).toEqual([
      'ok ping',
      'error invalid_frame at line 3: pong: `seq`: required field is missing',
      expect.stringMatching(/^error malformed_json at line 5: /),
      'ok pause',
      '',
    ]);
    expect(run.code).toBe(1);
  });

  it('recovers after a 17 MiB line', async () => {
    const big = Buffer.alloc(17 * 1024 * 1024, 'a');
    const run = await runArbor(['protocol', 'check'], {
      input: ['{"type":"inject","message":"', big, '"}\n{"type":"ping","seq":2}\n'],
    });
    expect(run.stdout.split('\n')).toEqual([
      expect.stringMatching(/^error frame_too_large at line 1: /),
      'ok ping',
      '',
    ]);
    expect(run.code).toBe(1);
  });

  it.each([
    ['up', '{"type":"pong","seq":1}\n', 0, 'ok pong'],
    ['up', '{"type":"ping","seq":1}\n', 1, 'error wrong_direction'],
    ['down', '{"type":"ping","seq":1}\n', 0, 'ok ping'],
    ['down', '{"type":"pong","seq":1}\n', 1, 'error wrong_direction'],
  ])('--direction %s restricts the frames accepted', async (direction, input, code, verdict) => {
    const run = await runArbor(['protocol', 'check', '--direction', direction], { input });
    expect(run.stdout.startsWith(verdict)).toBe(true);
    expect(run.code).toBe(code);
  });

  it('exits 0 with no output on empty input', async () => {
    const run = await runArbor(['protocol', 'check'], { input: '' });
    expect(run).toMatchObject({ code: 0, stdout: '' });
  });

  it.each([
    [
      ['protocol', 'check', '--direction', 'sideways'],
      'Expected `--direction` to be `up` or `down`, got `sideways`.',
    ],
    [['protocol', 'check', '--strict'], "Unknown option '--strict'"],
    [['protocol', 'verify'], 'Unknown subcommand `protocol verify`'],
    [['launch'], 'Unknown command `launch`'],
  ])('exits 2 naming the bad argument: %j', async (args, message) => {
    const run = await runArbor(args, { input: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});
