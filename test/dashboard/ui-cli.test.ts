import { describe, expect, it } from 'vitest';
import { ArborProcess } from '../helpers/arbor-process.js';
import { runArbor } from '../helpers/run-arbor.js';
import { seedBigRun } from '../helpers/seed-store.js';

describe('arbor ui (the CLI)', () => {
  it('prints a sign-in URL whose one-time token opens the store, and stops on SIGTERM', async () => {
    const { db, runId } = seedBigRun(3, 1);
    const proc = new ArborProcess(['ui', '--db', db, '--listen', '127.0.0.1:0']);
    const [, url = '', token = ''] = await proc.waitForStderr(
      /^ {4}(http:\/\/127\.0\.0\.1:\d+)\/#token=([\w-]+)$/m,
    );
    const signIn = await fetch(`${url}/ui/session`, {
      method: 'POST',
      headers: { origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const runs = (await (await fetch(`${url}/ui/api/runs`, { headers: { cookie } })).json()) as {
      runs: { run_id: string }[];
    };
    expect(runs.runs.map((r) => r.run_id)).toEqual([runId]);
    proc.signal('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });

  it('refuses a non-loopback address and a store that does not exist, saying why', async () => {
    const { db } = seedBigRun(2, 1);
    const open = await runArbor(['ui', '--db', db, '--listen', '0.0.0.0:0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('loopback only');
    const missing = await runArbor(['ui', '--db', '/nonexistent/arbor.db']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No store at /nonexistent/arbor.db');
    const bad = await runArbor(['ui', '--listen', 'nowhere']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--listen: expected HOST:PORT');
  });
});
