import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../../src/protocol/index.js';
import type { ToolAnswer } from '../../src/supervisor/internal/index.js';
import { NodeWaits, unansweredCalls } from '../../src/supervisor/node/node-waits.js';

function deferred() {
  let resolve!: (answer: ToolAnswer) => void;
  const promise = new Promise<ToolAnswer>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const ask = (id: number, question: string) => ({
  type: 'tool_request' as const,
  id,
  name: 'ask_human',
  args: { question },
});

describe('NodeWaits: what a parked node waited on is answered to the child that wakes it', () => {
  it('serves a repeated request from the carried one, never twice', async () => {
    const waits = new NodeWaits(() => undefined);
    const person = deferred();
    let asked = 0;
    const handler = () => {
      asked += 1;
      return person.promise;
    };
    void waits.serve(ask(1, 'Blue?'), handler);
    expect(waits.waiting).toEqual(['ask_human']);
    const arrived = waits.park();
    expect(waits.waiting).toEqual([]);
    person.resolve({ result: 'yes', is_error: false });
    await arrived;
    // The woken child asks again (a new frame id): the carried answer, no second question.
    await expect(waits.serve(ask(7, 'Blue?'), handler)).resolves.toEqual({
      result: 'yes',
      is_error: false,
    });
    expect(asked).toBe(1);
    // Taken once: a later identical question is a new one.
    void waits.serve(ask(8, 'Blue?'), handler);
    expect(asked).toBe(2);
  });

  it('matches by tool and arguments, and wakes only when every carried request has arrived', async () => {
    const waits = new NodeWaits(() => undefined);
    const first = deferred();
    const second = deferred();
    void waits.serve(ask(1, 'One?'), () => first.promise);
    void waits.serve(ask(2, 'Two?'), () => second.promise);
    let woke = false;
    void waits.park().then(() => {
      woke = true;
    });
    first.resolve({ result: '1', is_error: false });
    await Promise.resolve();
    await Promise.resolve();
    expect(woke).toBe(false);
    second.resolve({ result: '2', is_error: false });
    await expect.poll(() => woke).toBe(true);
    const other = deferred();
    await expect(waits.serve(ask(3, 'Two?'), () => other.promise)).resolves.toMatchObject({
      result: '2',
    });
  });
});

describe('unansweredCalls', () => {
  const assistant = (ids: [string, string][]): TranscriptMessage => ({
    role: 'assistant',
    text: '',
    tool_calls: ids.map(([id, name]) => ({ id, name, args: {} })),
  });
  const tool = (id: string, name: string): TranscriptMessage => ({
    role: 'tool',
    id,
    name,
    content: 'ok',
    is_error: false,
  });

  it('names the calls of the step in flight that have no result yet, and nothing when there is none', () => {
    const step = assistant([
      ['c1', 'ask_human'],
      ['c2', 'fs.list'],
    ]);
    expect(unansweredCalls([step])).toEqual(['ask_human', 'fs.list']);
    expect(unansweredCalls([step, tool('c2', 'fs.list')])).toEqual(['ask_human']);
    expect(unansweredCalls([assistant([])])).toBeUndefined();
    expect(unansweredCalls([])).toBeUndefined();
  });
});
