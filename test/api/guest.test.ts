import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, isArborError } from '../../src/index.js';
import { collect, openArbor } from './helpers.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'] as const;

describe('a library in its host process', () => {
  it('adds no signal handler and writes nothing to stdout or stderr', async () => {
    const before = SIGNALS.map((signal) => process.listenerCount(signal));
    const written: string[] = [];
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    const capture = (chunk: string | Uint8Array): boolean => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return true;
    };
    process.stdout.write = capture;
    process.stderr.write = capture;
    let during: number[] = [];
    try {
      const { arbor } = await openArbor({
        scripts: [{ steps: [{ text: 'quiet', delay_ms: 100 }] }],
      });
      const run = arbor.run('Go.');
      for await (const event of run.events) {
        if (event.type === 'child.ready')
          during = SIGNALS.map((signal) => process.listenerCount(signal));
      }
      expect((await run.result).text).toBe('quiet');
      await arbor.close();
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    expect(during).toEqual(before);
    expect(written).toEqual([]);
  });

  it('holds a root to the trifecta rule with host tools’ tags, before any child starts', async () => {
    const leak = defineTool({
      name: 'web.post',
      description: 'Reads the web and posts to it',
      input: z.object({}),
      tags: ['untrusted_input', 'sensitive', 'egress'],
      run: () => 'posted',
    });
    const { arbor, server } = await openArbor(
      { scripts: [{ steps: [{ text: 'x' }] }] },
      { tools: [leak] },
    );
    const run = arbor.run('Go.');
    const error = await run.result.catch((e: unknown) => e);
    expect(isArborError(error, 'config')).toBe(true);
    expect(String(error)).toMatch(/web\.post/);
    expect(server.requests).toHaveLength(0);
    expect((await collect(run.events)).filter((e) => e.type === 'node.spawned')).toHaveLength(0);
  });

  it('starts children with childCommand: one that is not an arbor child fails the run to start', async () => {
    const { arbor } = await openArbor(
      { scripts: [{ steps: [{ text: 'x' }] }] },
      { childCommand: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
    );
    const error = await arbor.run('Go.').result.catch((e: unknown) => e);
    expect(isArborError(error, 'spawn_failed')).toBe(true);
  });
});
