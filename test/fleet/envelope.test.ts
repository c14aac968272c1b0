import { describe, expect, it } from 'vitest';
import {
  DownRecordSchema,
  JobBodySchema,
  open,
  openJob,
  seal,
  signJob,
  UpRecordSchema,
  entryFields as fieldsOf,
  type JobBody,
  type KeyLookup,
  type UpRecord,
} from '../../src/fleet/envelope.js';
import { FleetIdentity, type FleetPublicKey } from '../../src/fleet/fleet-identity.js';

const key = FleetIdentity.generate().identity;
const otherKey = FleetIdentity.generate().identity;
const UP = 'arbor:fleet:run.n1.1.abcd:up';
const HELLO: UpRecord = { k: 'hello', worker: 'w1', host: 'h1' };

/** A lookup that takes only these identities' keys. */
function only(...identities: FleetIdentity[]): KeyLookup {
  const keys = new Map<string, FleetPublicKey>(
    identities.map((identity) => [identity.publicKey.id, identity.publicKey]),
  );
  return (id) => keys.get(id) ?? 'not one of the test keys';
}
const keys = only(key);

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
    const opened = open(keys, UP, fieldsOf(seal(key, UP, 0, HELLO)), 0, UpRecordSchema);
    expect(opened).toEqual({ ok: true, record: HELLO, key: key.publicKey });
  });

  it('opens a stream of records in order, and each only at its own place', () => {
    const records: UpRecord[] = [HELLO, { k: 'beat' }, { k: 'stderr', line: 'log' }];
    const entries = records.map((record, seq) => seal(key, UP, seq, record));
    entries.forEach((entry, seq) => {
      expect(open(keys, UP, fieldsOf(entry), seq, UpRecordSchema)).toMatchObject({
        ok: true,
        record: records[seq],
      });
    });
  });

  it('refuses a tampered message', () => {
    const entry = seal(key, UP, 0, { k: 'exit', code: 0, signal: null });
    const tampered = { ...entry, m: entry.m.replace('"code":0', '"code":1') };
    expect(tampered.m).not.toBe(entry.m);
    expect(open(keys, UP, fieldsOf(tampered), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry whose signature does not verify',
    });
  });

  it('refuses a forged signature', () => {
    const entry = { ...seal(key, UP, 0, HELLO), sig: `${'A'.repeat(86)}==` };
    expect(open(keys, UP, fieldsOf(entry), 0, UpRecordSchema)).toMatchObject({
      ok: false,
      reason: 'an entry whose signature does not verify',
    });
  });

  it('refuses an entry sealed under a key the lookup does not take, saying whose', () => {
    const entry = seal(otherKey, UP, 0, HELLO);
    expect(open(keys, UP, fieldsOf(entry), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: `an entry signed by key ${otherKey.publicKey.id}, not one of the test keys`,
    });
    expect(open(only(key, otherKey), UP, fieldsOf(entry), 0, UpRecordSchema).ok).toBe(true);
  });

  it('refuses an entry that names one key and is signed by another', () => {
    const entry = { ...seal(otherKey, UP, 0, HELLO), k: key.publicKey.id };
    expect(open(only(key, otherKey), UP, fieldsOf(entry), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry whose signature does not verify',
    });
  });

  it('refuses an entry moved to another stream', () => {
    const entry = seal(key, 'arbor:fleet:run.n2.1.ffff:up', 0, HELLO);
    expect(open(keys, UP, fieldsOf(entry), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry whose signature does not verify',
    });
  });

  it('refuses a replay: the same entry twice', () => {
    const entry = seal(key, UP, 0, HELLO);
    expect(open(keys, UP, fieldsOf(entry), 0, UpRecordSchema).ok).toBe(true);
    expect(open(keys, UP, fieldsOf(entry), 1, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry out of sequence (expected 1, got 0)',
    });
  });

  it('refuses entries out of order', () => {
    const second = seal(key, UP, 1, { k: 'beat' });
    expect(open(keys, UP, fieldsOf(second), 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry out of sequence (expected 0, got 1)',
    });
  });

  it.each([
    ['no fields', []],
    ['no signature', ['m', '{}', 'k', key.publicKey.id]],
    ['no key id', ['m', '{}', 'sig', 'ab']],
    ['no message', ['k', key.publicKey.id, 'sig', 'ab']],
  ])('refuses an entry with %s', (_, fields) => {
    expect(open(keys, UP, fields, 0, UpRecordSchema)).toEqual({
      ok: false,
      reason: 'an entry without `m`, `k` and `sig`',
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
    const fields = ['m', m, 'k', key.publicKey.id, 'sig', key.sign(UP, m)];
    expect(open(keys, UP, fields, 0, UpRecordSchema)).toEqual({
      ok: false,
      reason,
    });
  });

  it('refuses an up record where a down record is expected', () => {
    const entry = seal(key, UP, 0, HELLO);
    expect(open(keys, UP, fieldsOf(entry), 0, DownRecordSchema)).toEqual({
      ok: false,
      reason: 'a signed entry of an unknown shape',
    });
  });

  it('finds the fields in any order', () => {
    const entry = seal(key, UP, 0, HELLO);
    const fields = ['sig', entry.sig, 'm', entry.m, 'k', entry.k];
    expect(open(keys, UP, fields, 0, UpRecordSchema).ok).toBe(true);
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
      { k: 'accept', key: key.publicKey.id, worker: 'host/1/abc' },
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
    expect(openJob(keys, 'job-1', job)).toEqual({ ok: true, record: body(), key: key.publicKey });
  });

  it('refuses a job signed for another job id', () => {
    const job = signJob(key, 'job-1', body());
    expect(openJob(keys, 'job-2', job)).toEqual({
      ok: false,
      reason: 'a job whose signature does not verify',
    });
  });

  it('refuses a tampered body', () => {
    const job = signJob(key, 'job-1', body());
    const tampered = { ...job, body: job.body.replace('"attempt":1', '"attempt":2') };
    expect(tampered.body).not.toBe(job.body);
    expect(openJob(keys, 'job-1', tampered)).toMatchObject({ ok: false });
  });

  it('refuses a forged signature, and a job signed by a key the lookup does not take', () => {
    const job = signJob(key, 'job-1', body());
    expect(openJob(keys, 'job-1', { ...job, sig: `${'A'.repeat(86)}==` }).ok).toBe(false);
    expect(openJob(keys, 'job-1', signJob(otherKey, 'job-1', body()))).toEqual({
      ok: false,
      reason: `a job signed by key ${otherKey.publicKey.id}, not one of the test keys`,
    });
    // Naming the supervisor's key id does not help a job signed by another.
    const minted = { ...signJob(otherKey, 'job-1', body()), key: key.publicKey.id };
    expect(openJob(keys, 'job-1', minted)).toEqual({
      ok: false,
      reason: 'a job whose signature does not verify',
    });
  });

  it('refuses a stream entry offered as a job', () => {
    const entry = seal(key, 'job:job-1', 0, HELLO);
    expect(openJob(keys, 'job-1', { body: entry.m, key: entry.k, sig: entry.sig })).toEqual({
      ok: false,
      reason: 'a signed job of an unknown shape',
    });
  });

  it.each([
    ['nothing', undefined],
    ['a bare body', body()],
    ['a signature that is not text', { body: '{}', key: 'k', sig: 1 }],
  ])('refuses %s as a job without a signed body', (_, data) => {
    expect(openJob(keys, 'job-1', data)).toEqual({
      ok: false,
      reason: 'a job without a signed body',
    });
  });

  it.each([
    ['not JSON', 'nope', 'a signed job that is not JSON'],
    ['of an unknown shape', '{"v":1,"run_id":"r"}', 'a signed job of an unknown shape'],
  ])('refuses a correctly signed body that is %s', (_, text, reason) => {
    const data = { body: text, key: key.publicKey.id, sig: key.sign('job:job-1', text) };
    expect(openJob(keys, 'job-1', data)).toEqual({ ok: false, reason });
  });
});
