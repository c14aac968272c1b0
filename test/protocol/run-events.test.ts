import { describe, expect, it } from 'vitest';
import { RunHistory } from '../../src/index.js';
import { readChildEvent } from '../../src/protocol/index.js';
import { eventsAfter } from '../../src/dashboard/run-data.js';
import { wireLine } from '../../src/dashboard/run-views.js';
import { SqliteStore } from '../../src/store/index.js';

describe('a child event, read at the edge', () => {
  it.each([
    {
      what: 'a known event, its fields in camelCase, the ones it does not name kept',
      name: 'tool.result',
      fields: { id: 'c1', name: 'fs.read', is_error: false, ms: 3, added_later: 1 },
      read: {
        ok: true,
        event: {
          type: 'tool.result',
          id: 'c1',
          name: 'fs.read',
          isError: false,
          ms: 3,
          addedLater: 1,
        },
      },
    },
    {
      what: 'a name no event has',
      name: 'made.up',
      fields: {},
      read: { ok: false, reason: 'unknown event `made.up`' },
    },
    {
      what: "an event that is the supervisor's to record",
      name: 'budget.ceiling',
      fields: { tokens: 1 },
      read: {
        ok: false,
        reason: "`budget.ceiling` is the supervisor's to record, not a child's to report",
      },
    },
    {
      what: 'fields that do not match',
      name: 'text.delta',
      fields: { step: 1 },
      read: { ok: false, reason: expect.stringMatching(/^`text\.delta`: `text`: /) as unknown },
    },
  ])('gives $what', ({ name, fields, read }) => {
    expect(readChildEvent(name, fields)).toEqual(read);
  });
});

describe('events read back from a store', () => {
  /** A store holding, for run `r1`, the events another arbor version might have written. */
  function olderStore(): SqliteStore {
    const store = new SqliteStore(':memory:');
    store.createRun({
      id: 'r1',
      instruction: 'x',
      status: 'completed',
      createdAt: 0,
      meta: {},
    });
    const ts = Date.UTC(2026, 0, 1);
    store.appendEvent({
      runId: 'r1',
      ts,
      kind: 'gate.open',
      data: { gate: 'g1', question: 'Go?', resumed: true },
    });
    store.appendEvent({ runId: 'r1', ts, kind: 'made.up', data: { some_field: 1 } });
    return store;
  }

  it('reads the old name `gate.open` as `gate.opened` in the API, and writes it as it was', () => {
    const store = olderStore();
    const [opened] = new RunHistory(store).events('r1');
    expect(opened).toEqual({
      type: 'gate.opened',
      ts: '2026-01-01T00:00:00.000Z',
      runId: 'r1',
      gate: 'g1',
      question: 'Go?',
      resumed: true,
    });
    const [record] = store.listEvents('r1');
    if (record === undefined) throw new Error('no event stored');
    expect(wireLine('r1', record, new Map())).toMatchObject({ event: 'gate.open', gate: 'g1' });
  });

  it('shows a kind it does not know the same way in the API, the CLI and the dashboard: `event.unknown`, as stored', () => {
    const store = olderStore();
    const unknown = new RunHistory(store).events('r1')[1];
    expect(unknown).toEqual({
      type: 'event.unknown',
      ts: '2026-01-01T00:00:00.000Z',
      runId: 'r1',
      name: 'made.up',
      fields: { some_field: 1 },
    });
    const line = {
      ts: '2026-01-01T00:00:00.000Z',
      run_id: 'r1',
      event: 'event.unknown',
      name: 'made.up',
      fields: { some_field: 1 },
    };
    const record = store.listEvents('r1')[1];
    if (record === undefined) throw new Error('no event stored');
    expect(wireLine('r1', record, new Map())).toEqual(line);
    expect(eventsAfter(store, 'r1', 0, 10)[1]).toEqual({ seq: record.seq, ...line });
  });
});
