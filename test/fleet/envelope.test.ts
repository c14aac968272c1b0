import { describe, expect, it } from 'vitest';
import {
  DownRecordSchema,
  JobBodySchema,
  open,
  openJob,
  seal,
  signJob,
  UpRecordSchema,
  type JobBody,
  type SealedEntry,
  type UpRecord,
} from '../../src/fleet/envelope.js';
import { FleetKey } from '../../src/fleet/fleet-key.js';

const key = FleetKey.fromEnv({ ARBOR_FLEET_KEY: 'envelope-test-key-0123456789abcdef' });
const otherKey = FleetKey.fromEnv({ ARBOR_FLEET_KEY: 'another-fleet-key-0123456789abcdef' });
const UP = 'arbor:fleet:run.n1.1.abcd:up';
const HELLO: UpRecord = { k: 'hello', worker: 'w1', host: 'h1' };

/** An entry's fields as XREAD returns them. */
function fieldsOf(entry: SealedEntry): string[] {
  return ['m', entry.m, 'h', entry.h];
}

function body(overrides: Partial<JobBody> = {}): JobBody {
  return JobBodySchema.parse({
    v: 1,
    run_id: 'run_1',
    node_id: 'n1',
    path: '0.1',
    attempt: 1,
    up: UP,
    down: 'arbor:fleet:run.n1.1.abcd:down',
    payload: { instruction: 'Work.' },
    keyed: [0],
    ping_ms: 200,
    expires_at: 1_900_000_000_000,
    ...overrides,
  });
}

describe('seal and open', () => {
  it('opens what it sealed, at the expected sequence number', () => {
    const opened = open(key, UP, fieldsOf(seal(key, UP, 0, HELLO)), 0, UpRecordSchema);
    expect(opened).toEqual({ ok: true, record: HELLO });
  });

  it('opens a stream of records in order, and each only at its own place', () => {
    const records: UpRecord[] = [HELLO, { k: 'beat' }, { k: 'stderr', line: 'log' }];
    const entries = records.map((record, seq) => seal(key, UP, seq, record));
    entries.forEach((entry, seq) => {
      expect(open(key, UP, fieldsOf(entry), seq, UpRecordSchema)).toEqual({
        ok: true,
        record: records[seq],
      });
    });
  });

  it('refuses a tampered message', () => {
    const entry = seal(key, UP, 0, { k: 'exit', code: 0, signal: null });
    const tampered = { ...entry, m: entry.m.replace('"code":0', '"code":1') };
    expect(tampered.m).not.toBe(entry.m);
    expect(open(key, UP, fieldsOf(tampered), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry whose MAC does not verify',
    });
  });

  it('refuses a forged MAC', () => {
    const entry = { ...seal(key, UP, 0, HELLO), h: '0'.repeat(64) };
    expect(open(key, UP, fieldsOf(entry), 0, UpRecordSchema)).toMatchObject({
      ok: false,
      reason: 'an entry whose MAC does not verify',
    });
  });

  it('refuses an entry sealed under another key', () => {
    const entry = seal(otherKey, UP, 0, HELLO);
    expect(open(key, UP, fieldsOf(entry), 0, UpRecordSchema)).toMatchObject({ ok: false });
  });

  it('refuses an entry moved to another stream', () => {
    const entry = seal(key, 'arbor:fleet:run.n2.1.ffff:up', 0, HELLO);
    expect(open(key, UP, fieldsOf(entry), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry whose MAC does not verify',
    });
  });

  it('refuses a replay: the same entry twice', () => {
    const entry = seal(key, UP, 0, HELLO);
    expect(open(key, UP, fieldsOf(entry), 0, UpRecordSchema).ok).toBe(true);
    expect(open(key, UP, fieldsOf(entry), 1, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry out of sequence (expected 1, got 0)',
    });
  });

  it('refuses entries out of order', () => {
    const second = seal(key, UP, 1, { k: 'beat' });
    expect(open(key, UP, fieldsOf(second), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry out of sequence (expected 0, got 1)',
    });
  });

  it.each([
    ['no fields', []],
    ['no MAC', ['m', '{}']],
    ['no message', ['h', 'ab']],
  ])('refuses an entry with %s', (_, fields) => {
    expect(open(key, UP, fields, 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry without `m` and `h`',
    });
  });

  it.each([
    ['not JSON', 'not json', 'a signed entry that is not JSON'],
    ['without a sequence number', '{"r":{"k":"beat"}}', 'a signed entry without a sequence number'],
    [
      'a negative sequence number',
      '{"s":-1,"r":{"k":"beat"}}',
      'a signed entry without a sequence number',
    ],
    [
      'an unknown record',
      '{"s":0,"r":{"k":"run","command":"sh"}}',
      'a signed entry of an unknown shape',
    ],
  ])('refuses a correctly signed message that is %s', (_, m, reason) => {
    expect(open(key, UP, ['m', m, 'h', key.sign(UP, m)], 0, UpRecordSchema)).toEqual({
      ok: false,
      reason,
    });
  });

  it('refuses an up record where a down record is expected', () => {
    const entry = seal(key, UP, 0, HELLO);
    expect(open(key, UP, fieldsOf(entry), 0, DownRecordSchema)).toEqual({
      ok: false,
      reason: 'a signed entry of an unknown shape',
    });
  });

  it('finds the fields in any order', () => {
    const entry = seal(key, UP, 0, HELLO);
    expect(open(key, UP, ['h', entry.h, 'm', entry.m], 0, UpRecordSchema).ok).toBe(true);
  });
});

describe('record schemas', () => {
  it.each([
    { k: 'frame', line: '{"type":"ready"}' },
    { k: 'violation', code: 'invalid_json', reason: 'r', excerpt: 'e' },
    { k: 'exit', code: null, signal: 'SIGKILL', lost: 'the worker is stopping' },
  ])('accepts the up record %o', (record) => {
    expect(UpRecordSchema.safeParse(record).success).toBe(true);
  });

  it.each([
    { k: 'hello', worker: 'w'.repeat(201), host: 'h' },
    { k: 'exit', code: 1.5, signal: null },
    { k: 'stderr', line: 'x'.repeat(16_385) },
    { k: 'signal', signal: 'SIGTERM' },
  ])('refuses the up record %#', (record) => {
    expect(UpRecordSchema.safeParse(record).success).toBe(false);
  });

  it('accepts the down records and refuses any other signal', () => {
    for (const record of [
      { k: 'frame', line: '{"type":"ping","seq":1}' },
      { k: 'close' },
      { k: 'signal', signal: 'SIGTERM' },
      { k: 'signal', signal: 'SIGKILL' },
    ])
      expect(DownRecordSchema.safeParse(record).success).toBe(true);
    expect(DownRecordSchema.safeParse({ k: 'signal', signal: 'SIGSTOP' }).success).toBe(false);
    expect(DownRecordSchema.safeParse({ k: 'beat' }).success).toBe(false);
  });

  it('defaults `keyed` to none, and refuses a job body of another version', () => {
    const { keyed: _keyed, ...rest } = body();
    expect(JobBodySchema.parse(rest).keyed).toEqual([]);
    expect(JobBodySchema.safeParse({ ...rest, v: 2 }).success).toBe(false);
    expect(JobBodySchema.safeParse({ ...rest, attempt: 0 }).success).toBe(false);
  });
});

describe('signJob and openJob', () => {
  it('opens the job it signed, under its id', () => {
    const job = signJob(key, 'job-1', body());
    expect(openJob(key, 'job-1', job)).toEqual({ ok: true, record: body() });
  });

  it('refuses a job signed for another job id', () => {
    const job = signJob(key, 'job-1', body());
    expect(openJob(key, 'job-2', job)).toEqual({
      ok: false,
      reason: 'a job whose MAC does not verify',
    });
  });

  it('refuses a tampered body', () => {
    const job = signJob(key, 'job-1', body());
    const tampered = { ...job, body: job.body.replace('"attempt":1', '"attempt":2') };
    expect(tampered.body).not.toBe(job.body);
    expect(openJob(key, 'job-1', tampered)).toMatchObject({ ok: false });
  });

  it('refuses a forged MAC and one under another key', () => {
    const job = signJob(key, 'job-1', body());
    expect(openJob(key, 'job-1', { ...job, mac: 'ab'.repeat(32) }).ok).toBe(false);
    expect(openJob(key, 'job-1', signJob(otherKey, 'job-1', body())).ok).toBe(false);
  });

  it('refuses a stream entry offered as a job', () => {
    const entry = seal(key, 'job:job-1', 0, HELLO);
    expect(openJob(key, 'job-1', { body: entry.m, mac: entry.h })).toEqual({
      ok: false,
      reason: 'a signed job of an unknown shape',
    });
  });

  it.each([
    ['nothing', undefined],
    ['a bare body', body()],
    ['a MAC that is not text', { body: '{}', mac: 1 }],
  ])('refuses %s as a job without a signed body', (_, data) => {
    expect(openJob(key, 'job-1', data)).toEqual({
      ok: false,
      reason: 'a job without a signed body',
    });
  });

  it.each([
    ['not JSON', 'nope', 'a signed job that is not JSON'],
    ['of an unknown shape', '{"v":1,"run_id":"r"}', 'a signed job of an unknown shape'],
  ])('refuses a correctly signed body that is %s', (_, text, reason) => {
    const data = { body: text, mac: key.sign('job:job-1', text) };
    expect(openJob(key, 'job-1', data)).toEqual({ ok: false, reason });
  });
});
