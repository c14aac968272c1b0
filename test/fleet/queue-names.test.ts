import { describe, expect, it } from 'vitest';
import {
  checkName,
  DEFAULT_QUEUE,
  MAX_WORKER_LABELS,
  queueFor,
  queuesOf,
} from '../../src/fleet/queue-names.js';

describe('checkName', () => {
  it.each(['arbor', 'gpu', 'A-z_09', 'x'.repeat(64)])('accepts `%s`', (name) => {
    expect(checkName(name, 'a label')).toBe(name);
  });

  it.each(['', 'x'.repeat(65), 'gpu+rust', 'a.b', 'with space', 'ünï', 'a:b'])(
    'refuses `%s` as a usage error naming what it checked',
    (name) => {
      expect(() => checkName(name, 'a label')).toThrow(
        expect.objectContaining({
          code: 'usage',
          message: expect.stringMatching(/^Expected a label to be 1–64 letters/) as unknown,
        }),
      );
    },
  );
});

describe('queueFor', () => {
  it('is the base queue when a job needs no labels', () => {
    expect(queueFor(DEFAULT_QUEUE, [])).toBe('arbor');
  });

  it('names the sorted, deduplicated label set', () => {
    expect(queueFor('arbor', ['rust', 'gpu', 'rust'])).toBe('arbor.gpu+rust');
    expect(queueFor('arbor', ['gpu', 'rust'])).toBe(queueFor('arbor', ['rust', 'gpu']));
  });
});

describe('queuesOf', () => {
  it('is only the base queue for a worker without labels', () => {
    expect(queuesOf('arbor', [])).toEqual(['arbor']);
  });

  it('lists a queue for every subset of the labels, each once', () => {
    const queues = queuesOf('q', ['c', 'a', 'b', 'a']);
    expect(queues).toHaveLength(8);
    expect(new Set(queues).size).toBe(8);
    expect([...queues].sort()).toEqual(
      ['q', 'q.a', 'q.b', 'q.c', 'q.a+b', 'q.a+c', 'q.b+c', 'q.a+b+c'].sort(),
    );
  });

  it('covers the queue of every job the worker can take, and none it cannot', () => {
    const worker = queuesOf('arbor', ['gpu', 'rust', 'linux']);
    for (const need of [[], ['gpu'], ['linux', 'gpu'], ['rust', 'gpu', 'linux']])
      expect(worker).toContain(queueFor('arbor', need));
    expect(worker).not.toContain(queueFor('arbor', ['gpu', 'mac']));
  });

  it(`takes up to ${MAX_WORKER_LABELS} labels (${2 ** MAX_WORKER_LABELS} queues)`, () => {
    expect(queuesOf('arbor', ['a', 'b', 'c', 'd'])).toHaveLength(16);
  });

  it('refuses a fifth label as a usage error naming the labels', () => {
    expect(() => queuesOf('arbor', ['a', 'b', 'c', 'd', 'e'])).toThrow(
      expect.objectContaining({
        code: 'usage',
        message: 'A worker takes at most 4 labels, got 5: a, b, c, d, e.',
      }),
    );
  });

  it('counts distinct labels against the limit', () => {
    expect(queuesOf('arbor', ['a', 'b', 'c', 'd', 'a'])).toHaveLength(16);
  });
});
