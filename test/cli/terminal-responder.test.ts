import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalResponder } from '../../src/cli/terminal-responder.js';
import type { HumanResponder } from '../../src/supervisor/index.js';

type GateRecord = Parameters<HumanResponder['ask']>[0];

function gate(choices?: unknown[]): GateRecord {
  return {
    runId: 'run_1',
    id: 'gate_1',
    nodeId: 'n1',
    question: 'Deploy now?',
    payload: choices === undefined ? {} : { choices },
    status: 'open',
    createdAt: 0,
  };
}

/** Asks one question on an in-memory terminal, types `typed` once it is shown, and answers. */
async function ask(typed: string, choices?: unknown[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  const prompted = new Promise<void>((resolve) => {
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      if (shown.includes('> ')) resolve();
    });
  });
  const answer = terminalResponder(input, output).ask(gate(choices), {
    signal: new AbortController().signal,
  });
  await prompted;
  input.write(`${typed}\n`);
  return { answer: await answer, shown };
}

describe('terminalResponder', () => {
  it('numbers the choices as it shows them', async () => {
    const { shown } = await ask('1', ['yes', 'no', 'later']);
    expect(shown).toContain('Deploy now? [1) yes / 2) no / 3) later]');
  });

  it.each([
    ['2', 'no'],
    [' 3 ', 'later'],
    ['1', 'yes'],
    ['no', 'no'],
    ['4', '4'],
    ['0', '0'],
    ['maybe', 'maybe'],
  ])('stores the choice a number selects: %j → %j', async (typed, stored) => {
    const { answer } = await ask(typed, ['yes', 'no', 'later']);
    expect(answer).toEqual({ answered: true, answer: stored, via: 'terminal' });
  });

  it('keeps a typed number that is itself one of the choices', async () => {
    const { answer } = await ask('2', [5, 2, 1]);
    expect(answer).toMatchObject({ answer: '2' });
  });

  it('keeps a number as typed when the question offers no choices', async () => {
    const { answer } = await ask('2');
    expect(answer).toMatchObject({ answer: '2' });
  });
});
