import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { StreamHub } from '../../src/fleet/stream-hub.js';
import { describeWithRedis, startRedis, type TestRedis } from '../helpers/redis.js';

/** Longer than the hub's blocking read (5 s): a stream woken by `watch` arrives well before. */
const WAKE_BOUND_MS = 2_500;

/** A sink that keeps what it is given, and resolves `until(n)` once it holds `n` entries. */
function collector(): {
  entries: string[][];
  sink: (fields: string[]) => void;
  until(count: number): Promise<void>;
} {
  const entries: string[][] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    entries,
    sink: (fields) => {
      entries.push(fields);
      for (const waiter of waiters.filter((w) => entries.length >= w.count)) waiter.resolve();
    },
    until: (count) =>
      entries.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
  };
}

describeWithRedis('StreamHub', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  const hubs: StreamHub[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
    for (const client of clients.splice(0)) client.disconnect();
  });

  function connect(): Redis {
    const client = new Redis(redis.secretUrl, { maxRetriesPerRequest: null });
    clients.push(client);
    return client;
  }

  function hub(wakeKey = `test:wake:${randomUUID()}`): {
    hub: StreamHub;
    writer: Redis;
    wakeKey: string;
  } {
    const writer = connect();
    const created = new StreamHub({ reader: connect(), writer, wakeKey });
    hubs.push(created);
    return { hub: created, writer, wakeKey };
  }

  const name = (label: string): string => `test:${label}:${randomUUID()}`;

  it('gives its wake stream an expiry, so a killed process leaves none behind for good', async () => {
    const { hub: created, writer, wakeKey } = hub();
    created.watch(`test:s:${randomUUID()}`, () => undefined);
    await expect.poll(() => writer.exists(wakeKey)).toBe(1);
    const ttl = await writer.pttl(wakeKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
  });

  it('delivers the entries of many watched streams, each in order', async () => {
    const { hub: streams, writer } = hub();
    const keys = Array.from({ length: 6 }, (_, i) => name(`s${i}`));
    const sinks = keys.map(() => collector());
    keys.forEach((key, i) => {
      streams.watch(key, sinks[i]!.sink);
    });
    // Interleaved over all streams, and more than one read's worth (256) in one of them.
    const perStream = 40;
    const batch = writer.multi();
    for (let n = 0; n < perStream; n++)
      for (const key of keys) batch.xadd(key, '*', 'n', String(n));
    for (let n = perStream; n < 300; n++) batch.xadd(keys[0]!, '*', 'n', String(n));
    await batch.exec();
    await Promise.all(sinks.map((sink, i) => sink.until(i === 0 ? 300 : perStream)));
    sinks.forEach((sink, i) => {
      const count = i === 0 ? 300 : perStream;
      expect(sink.entries).toEqual(Array.from({ length: count }, (_, n) => ['n', String(n)]));
    });
  });

  it('keeps reading every stream when one sink throws, and reports what it threw', async () => {
    const errors: Error[] = [];
    const writer = connect();
    const streams = new StreamHub({
      reader: connect(),
      writer,
      wakeKey: `test:wake:${randomUUID()}`,
      onError: (error) => errors.push(error),
    });
    hubs.push(streams);
    const [bad, good] = [name('bad'), name('good')];
    streams.watch(bad, () => {
      throw new Error('sink blew up');
    });
    const sink = collector();
    streams.watch(good, sink.sink);
    await writer.xadd(bad, '*', 'n', '0');
    await writer.xadd(good, '*', 'n', '0');
    await writer.xadd(bad, '*', 'n', '1');
    await writer.xadd(good, '*', 'n', '1');
    await sink.until(2);
    expect(sink.entries).toEqual([
      ['n', '0'],
      ['n', '1'],
    ]);
    expect(errors.map((error) => error.message)).toEqual(['sink blew up', 'sink blew up']);
  });

  it('gives a stream watched after entries were written every entry from its first', async () => {
    const { hub: streams, writer } = hub();
    const key = name('late');
    await writer.xadd(key, '*', 'n', '0');
    await writer.xadd(key, '*', 'n', '1');
    const sink = collector();
    streams.watch(key, sink.sink);
    await writer.xadd(key, '*', 'n', '2');
    await sink.until(3);
    expect(sink.entries).toEqual([
      ['n', '0'],
      ['n', '1'],
      ['n', '2'],
    ]);
  });

  it('wakes a read in flight when a stream is watched, not after the block', async () => {
    const { hub: streams, writer } = hub();
    const first = collector();
    const a = name('a');
    streams.watch(a, first.sink);
    await writer.xadd(a, '*', 'n', '0');
    // Delivered: the hub now waits in a blocking read that does not name `b`.
    await first.until(1);
    const b = name('b');
    await writer.xadd(b, '*', 'n', '0');
    const second = collector();
    const started = performance.now();
    streams.watch(b, second.sink);
    await second.until(1);
    expect(performance.now() - started).toBeLessThan(WAKE_BOUND_MS);
  });

  it('stops delivering a stream once it is unwatched', async () => {
    const { hub: streams, writer } = hub();
    const [a, b] = [name('a'), name('b')];
    const [sinkA, sinkB] = [collector(), collector()];
    streams.watch(a, sinkA.sink);
    streams.watch(b, sinkB.sink);
    await writer.xadd(a, '*', 'n', '0');
    await sinkA.until(1);
    streams.unwatch(a);
    // Written before `b`'s entry: any read that returns `b`'s would have returned it too.
    await writer.xadd(a, '*', 'n', '1');
    await writer.xadd(b, '*', 'n', '0');
    await sinkB.until(1);
    expect(sinkA.entries).toEqual([['n', '0']]);
  });

  it('delivers nothing more of a batch to a sink that unwatched its stream part-way', async () => {
    const { hub: streams, writer } = hub();
    const [a, b] = [name('a'), name('b')];
    for (let n = 0; n < 5; n++) await writer.xadd(a, '*', 'n', String(n));
    const seen: string[][] = [];
    streams.watch(a, (fields) => {
      seen.push(fields);
      if (seen.length === 2) streams.unwatch(a);
    });
    const sinkB = collector();
    streams.watch(b, sinkB.sink);
    await writer.xadd(b, '*', 'n', '0');
    await sinkB.until(1);
    expect(seen).toEqual([
      ['n', '0'],
      ['n', '1'],
    ]);
  });

  it('watching a stream again starts it over from its first entry', async () => {
    const { hub: streams, writer } = hub();
    const a = name('a');
    await writer.xadd(a, '*', 'n', '0');
    const before = collector();
    streams.watch(a, before.sink);
    await before.until(1);
    const after = collector();
    streams.watch(a, after.sink);
    await after.until(1);
    expect(after.entries).toEqual([['n', '0']]);
    expect(before.entries).toHaveLength(1);
  });

  it('closes while a read blocks, and removes its wake stream', async () => {
    const { hub: streams, writer, wakeKey } = hub();
    streams.watch(name('idle'), () => undefined);
    // The wake entry `watch` added went first on the same connection.
    expect(await writer.exists(wakeKey)).toBe(1);
    const started = performance.now();
    await streams.close();
    expect(performance.now() - started).toBeLessThan(WAKE_BOUND_MS);
    expect(await writer.exists(wakeKey)).toBe(0);
    await streams.close();
  });
});
