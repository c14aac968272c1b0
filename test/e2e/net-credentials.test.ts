import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArbor } from '../helpers/run-arbor.js';
import { scriptedRun, workspace } from '../helpers/scripted-run.js';

// Shaped like no known credential: only its value can find it, in the tool and in the store.
const TOKEN = 'opaque-e2e-brokered-9c41d7a2e05b68f3';

let server: Server;
let hostPort: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  // Echoes the request's headers: the answer holds the credential the request carried.
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Every byte of the run's store: the database and its journal files. */
async function storeBytes(dir: string): Promise<string> {
  const names = await readdir(dir);
  const files = names.filter((name) => name.startsWith('arbor.db'));
  const texts = await Promise.all(files.map((name) => readFile(path.join(dir, name), 'latin1')));
  return texts.join('\n');
}

describe('[[net.credential]] in a real run', () => {
  it('sends the header to its host, and the value reaches no model, record, export or output', async () => {
    const { ws, base } = await workspace();
    const config = path.join(base, 'arbor.toml');
    await writeFile(
      config,
      `[[net.credential]]\nhost = "${hostPort}"\nheader = "x-api-key"\nvalue = "env:E2E_NET_TOKEN"\n`,
    );
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', hostPort, '--config', config],
      env: { E2E_NET_TOKEN: TOKEN },
      script: [
        { tool_calls: [{ name: 'http.fetch', args: { url: `http://${hostPort}/user` } }] },
        { text: 'fetched' },
      ],
    });
    expect(run.code, run.stderr).toBe(0);
    // The server got the credential.
    expect(seen.map((headers) => headers['x-api-key'])).toEqual([TOKEN]);
    // The model read the echo with the value scrubbed out, and never saw the value anywhere.
    expect(run.results[0]).toContain('"x-api-key":"[redacted]"');
    const bodies = JSON.stringify(run.bodies);
    expect(bodies).toContain('http.fetch');
    expect(bodies).not.toContain(TOKEN);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);

    const dir = path.join(ws, '.arbor');
    const list = await runArbor(['runs', 'list', '--json'], { cwd: ws });
    const [summary] = JSON.parse(list.stdout) as { run_id: string }[];
    expect(summary?.run_id).toBeDefined();
    const exported = await runArbor(['runs', 'export', summary?.run_id ?? ''], { cwd: ws });
    expect(exported.code, exported.stderr).toBe(0);
    // The export holds the call and its answer, and no value of the credential.
    expect(exported.stdout).toContain(`http://${hostPort}/user`);
    expect(exported.stdout).toContain('[redacted]');
    expect(exported.stdout).not.toContain(TOKEN);
    const bytes = await storeBytes(dir);
    expect(bytes).toContain(`http://${hostPort}/user`);
    expect(bytes).not.toContain(TOKEN);
  });

  it('scrubs the value from every record when it comes another way: a file the agent reads', async () => {
    const { ws, base } = await workspace({ 'token.txt': `${TOKEN}\n` });
    const config = path.join(base, 'arbor.toml');
    await writeFile(
      config,
      `[[net.credential]]\nhost = "api.example.com"\nheader = "x-api-key"\nvalue = "file:${path.join(ws, 'token.txt')}"\n`,
    );
    // No node may reach the credential's host, so none holds it: the run still knows the value.
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', hostPort, '--config', config],
      script: [
        { tool_calls: [{ name: 'fs.read', args: { path: 'token.txt' } }] },
        { text: `the token is ${TOKEN}` },
      ],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
    const bytes = await storeBytes(path.join(ws, '.arbor'));
    expect(bytes).toContain('the token is [redacted]');
    expect(bytes).not.toContain(TOKEN);
  });

  it('refuses to start when the credential cannot be resolved, naming it', async () => {
    const { ws, base } = await workspace();
    const config = path.join(base, 'arbor.toml');
    await writeFile(
      config,
      `[[net.credential]]\nhost = "${hostPort}"\nheader = "authorization"\nvalue = "env:E2E_UNSET_TOKEN"\n`,
    );
    const run = await scriptedRun({
      cwd: ws,
      args: ['--net', hostPort, '--config', config],
      script: [{ text: 'never' }],
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '`net.credential[0].value`: the environment variable `E2E_UNSET_TOKEN` is not set',
    );
    expect(run.bodies).toEqual([]);
  });
});
