import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import {
  CarriedGates,
  nextGateNumber,
  pendingGates,
} from '../../src/supervisor/resume/carried-gates.js';
import { HumanGates, type HumanResponder } from '../../src/supervisor/index.js';
import type { GateRecord } from '../../src/store/store-port.js';

const gate = (id: string, question: string, status: GateRecord['status']): GateRecord => ({
  runId: 'r',
  id,
  nodeId: 'n0',
  question,
  payload: {},
  status,
  createdAt: Number(id.slice(1)),
});

/** A store holding run `r` with the gates given, and a responder that counts who it asks. */
function resumedGates(gates: GateRecord[], openAtCrash: string[]) {
  const store = new SqliteStore(':memory:');
  store.createRun({ id: 'r', instruction: 'x', status: 'running', createdAt: 0, meta: {} });
  for (const g of gates) {
    store.openGate({ ...g, status: 'open' });
    if (g.status !== 'open')
      store.closeGate('r', g.id, { status: g.status, answer: 'earlier', via: 'cli', closedAt: 1 });
  }
  const asked: string[] = [];
  const responder: HumanResponder = {
    ask: (g) => {
      asked.push(g.id);
      return Promise.resolve({ answered: true, answer: `answer to ${g.id}`, via: 'test' });
    },
  };
  const events = [
    {
      seq: 1,
      runId: 'r',
      ts: 1,
      kind: 'run.interrupted',
      data: { reason: 'x', open_gates: openAtCrash },
    },
  ];
  const recorded = store.listGates({ runId: 'r' });
  const opened: [string, boolean][] = [];
  const humans = new HumanGates({
    store,
    runId: 'r',
    responder,
    events: { onOpen: (g, resumed) => opened.push([g.id, resumed]), onClose: () => undefined },
    resumed: {
      carried: new CarriedGates(store, 'r', pendingGates(recorded, events)),
      next: nextGateNumber(recorded),
    },
  });
  return { store, humans, asked, opened };
}

const ask = (humans: HumanGates, question: string) =>
  humans.ask('n0', question, {}, { signal: new AbortController().signal });

describe('gates carried over by a resume', () => {
  it('asks a gate open at the crash again under its own id, and new gates after every recorded one', async () => {
    const { store, humans, asked, opened } = resumedGates(
      [gate('g1', 'First?', 'answered'), gate('g2', 'Second?', 'open')],
      ['g2'],
    );
    expect((await ask(humans, 'Second?')).answered).toBe(true);
    expect(await ask(humans, 'Third?')).toMatchObject({ answer: 'answer to g3' });
    expect(asked).toEqual(['g2', 'g3']);
    expect(opened).toEqual([
      ['g2', true],
      ['g3', false],
    ]);
    expect(store.listGates({ runId: 'r' }).map((g) => [g.id, g.status])).toEqual([
      ['g1', 'answered'],
      ['g2', 'answered'],
      ['g3', 'answered'],
    ]);
  });

  it('takes an answer given while the run lay dead, without asking anyone', async () => {
    const { humans, asked } = resumedGates([gate('g1', 'Colour?', 'answered')], ['g1']);
    expect(await ask(humans, 'Colour?')).toEqual({
      answered: true,
      answer: 'earlier',
      via: 'cli',
    });
    expect(asked).toEqual([]);
  });

  it('never reuses a gate that closed before the crash: the same question is a new gate', async () => {
    const { humans, asked } = resumedGates([gate('g1', 'Colour?', 'answered')], []);
    await ask(humans, 'Colour?');
    expect(asked).toEqual(['g2']);
  });

  it('closes carried gates nobody asked again, failed via resume', () => {
    const { store, humans } = resumedGates([gate('g4', 'Never again?', 'open')], ['g4']);
    humans.settleCarried();
    expect(store.getGate('r', 'g4')).toMatchObject({ status: 'failed', via: 'resume' });
  });
});
