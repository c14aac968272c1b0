import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AdmittedWorkers, type AdmittedWorker } from '../../src/fleet/admitted-workers.js';
import { FleetPublicKey } from '../../src/fleet/fleet-identity.js';
import { WORKERS } from '../helpers/fleet.js';

const [A, B] = WORKERS.map((worker) => ({
  name: worker.name,
  key: FleetPublicKey.parse(worker.publicKey),
})) as [AdmittedWorker, AdmittedWorker];

/** A file of workers' names, one a line, which `reader` reads back as those workers. */
function listFile(): { file: string; write: (...workers: AdmittedWorker[]) => void } {
  const file = join(mkdtempSync(join(tmpdir(), 'arbor-admitted-')), 'admit.txt');
  return {
    file,
    write: (...workers) => {
      writeFileSync(file, workers.map((worker) => worker.name).join('\n'));
    },
  };
}

function reader(text: string): AdmittedWorker[] {
  if (text.includes('broken')) throw new Error('a file mid-edit');
  return [A, B].filter((worker) => text.split('\n').includes(worker.name));
}

describe('AdmittedWorkers', () => {
  it('finds an admitted worker by its key id, and nobody else', () => {
    const admitted = new AdmittedWorkers([A]);
    expect(admitted.find(A.key.id)).toBe(A);
    expect(admitted.find(B.key.id)).toBeUndefined();
    expect(admitted.size).toBe(1);
  });

  it('reads the list again when its file changes, at most once a second unless asked fresh', () => {
    const { file, write } = listFile();
    write(A, B);
    let now = 0;
    const admitted = new AdmittedWorkers(
      [A, B],
      { file, read: (path) => reader(readFileSync(path, 'utf8')) },
      () => now,
    );
    expect(admitted.find(A.key.id)).toBe(A);
    // The operator revokes A.
    write(B);
    now += 10;
    expect(admitted.find(A.key.id), 'looked again too soon').toBe(A);
    expect(admitted.find(A.key.id, { fresh: true })).toBeUndefined();
    expect(admitted.find(B.key.id)).toBe(B);
    // And admits it again: seen once a second has passed.
    write(A, B);
    now += 1_000;
    expect(admitted.find(A.key.id)).toBe(A);
  });

  it('keeps the last list while the file cannot be read or parsed', () => {
    const { file, write } = listFile();
    write(A);
    const admitted = new AdmittedWorkers([A], {
      file,
      read: (path) => reader(readFileSync(path, 'utf8')),
    });
    writeFileSync(file, 'broken');
    expect(admitted.find(A.key.id, { fresh: true })).toBe(A);
    rmSync(file);
    expect(admitted.find(A.key.id, { fresh: true })).toBe(A);
    write(B);
    expect(admitted.find(A.key.id, { fresh: true })).toBeUndefined();
    expect(admitted.find(B.key.id)).toBe(B);
  });
});
