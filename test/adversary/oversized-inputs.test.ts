import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import { killAt } from '../helpers/arbor-process.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { resumeDir, runIdOf } from '../helpers/resume-run.js';
import { rounds, scriptedRun, workspace } from '../helpers/scripted-run.js';
import { rpc, serveInProcess, serveProcess } from '../helpers/serve.js';

/**
 * Oversized inputs, tried the way an attacker (or an honest model with a large answer) would:
 * request bodies far past any sane size, declared or streamed; JSON nested millions deep; a
 * `memory.set` of a megabyte; and, the other way round, an honest model whose `fs.write` carries
 * hundreds of kilobytes to megabytes, which must be recorded whole and never counted against the
 * child that reported it.
 */

const MiB = 1024 * 1024;

interface Answer {
  status: number;
  body: string;
}

/** The serve process's peak resident memory so far, in bytes (Linux: `VmHWM`). */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/**
 * POSTs `total` bytes of body through a real socket, chunked (no Content-Length), from one reused
 * 64 KiB buffer, respecting back-pressure, so the client holds no more than a chunk. Resolves with
 * the response; a server that stops reading and closes the connection ends the upload early.
 */
function streamPost(url: string, headers: Record<string, string>, total: number): Promise<Answer> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => (body += text));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    // The server closing mid-upload is what a refusal looks like from here.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    let sent = 0;
    const pump = (): void => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/** POSTs a few bytes under a declared Content-Length of `declared`; the rest never comes. */
function declaredPost(
  url: string,
  headers: Record<string, string>,
  declared: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(declared) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => (body += text));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.setTimeout(5000, () => {
      req.destroy();
      reject(new Error('no answer within 5 s: the server is waiting for the declared body'));
    });
    req.write('{"jsonrpc":"2.0","id":1,');
  });
}

describe('oversized request bodies', () => {
  it.each([
    ['streamed, 64 MiB without a Content-Length', 'stream'],
    ['declared, a 600 MB Content-Length', 'declared'],
  ] as const)(
    'refuses a body %s with 413 and a JSON-RPC error, without holding it',
    async (_name, how) => {
      const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'never asked' }] }] });
      const dir = mkdtempSync(path.join(tmpdir(), 'arbor-oversized-'));
      const { proc, url, token } = await serveProcess(
        ['--intel', llm.url, '--model', 'm', '--db', ':memory:'],
        { cwd: dir },
      );
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'a2a-version': '1.0',
      };
      const pid = proc.child.pid ?? 0;
      const before = peakRss(pid);
      const answer =
        how === 'stream'
          ? await streamPost(`${url}/a2a/jsonrpc`, headers, 64 * MiB)
          : await declaredPost(`${url}/a2a/jsonrpc`, headers, 600 * 1000 * 1000);
      expect(answer.status).toBe(413);
      const body = JSON.parse(answer.body) as { jsonrpc: string; error: { message: string } };
      expect(body.jsonrpc).toBe('2.0');
      expect(body.error.message).toMatch(/at most 4194304 bytes \(4 MiB/);
      // The server never held the body: its peak memory grew by far less than what was sent.
      expect(peakRss(pid) - before).toBeLessThan(24 * MiB);
      // And it still serves.
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
    },
  );

  it('refuses JSON nested 5 million deep at once, without blocking the event loop', async () => {
    const { server } = await serveInProcess(
      { scripts: [{ steps: [{ text: 'never asked' }] }] },
      // Large enough that the size bound does not decide: the nesting bound must.
      { serve: { max_body_bytes: 16 * MiB } },
    );
    const token = server.principals.generated?.token ?? '';
    const depth = 5_000_000;
    const body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    // How late a 5 ms timer runs while the request is handled: the event loop's longest stall.
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 5);
      last = now;
    }, 5);
    try {
      const response = await fetch(`${server.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
        body,
      });
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { error: { code: number; message: string } };
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toMatch(/nested at most 64 levels/);
    } finally {
      clearInterval(timer);
    }
    // Parsing it (as before) stalled the loop for most of a second, then walked it.
    expect(worst).toBeLessThan(250);
    // A well-formed call still goes through.
    const ok = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
      body: rpc('ListTasks', {}),
    });
    expect(ok.status).toBe(200);
  });
});

describe('oversized tool calls', () => {
  it('refuses a 1 MB memory.set with a tool error the model can read, storing nothing', async () => {
    const { ws } = await workspace();
    const run = await scriptedRun({
      cwd: ws,
      script: [
        { tool_calls: [{ name: 'memory.set', args: { key: 'big', value: 'x'.repeat(MiB) } }] },
        { text: 'done' },
      ],
    });
    expect(run.code).toBe(0);
    expect(run.results[0]).toMatch(/at most 65536 bytes as JSON \(64 KiB\), got 1048578 bytes/);
    const store = new SqliteStore(path.join(ws, '.arbor', 'arbor.db'));
    try {
      expect(store.memoryGet('big', Date.now())).toBeUndefined();
    } finally {
      store.close();
    }
  });

  const POLICY = `
[[security.policy]]
action = "allow"
reason = "gates fs.write, so its arguments travel to the supervisor"
[security.policy.match]
tool = "fs.write"
`;

  it.each([
    ['run by the child', false],
    ['gated (its arguments travel in a tool_request)', true],
  ])(
    "records an honest model's 400 KB and 3 MB fs.write whole, %s, with no violation",
    async (_name, gated) => {
      const { ws } = await workspace();
      const config = path.join(ws, '..', 'policy.toml');
      writeFileSync(config, POLICY);
      const small = 'a'.repeat(400_000);
      // Quotes and backslashes double when escaped: the frames must allow for it.
      const large = 'b"\\'.repeat(1_000_000);
      const run = await scriptedRun({
        cwd: ws,
        args: gated ? ['--config', config] : [],
        script: [
          { tool_calls: [{ name: 'fs.write', args: { path: 'small.txt', content: small } }] },
          { tool_calls: [{ name: 'fs.write', args: { path: 'large.txt', content: large } }] },
          { text: 'written' },
        ],
      });
      expect(run.stderr).not.toMatch(/protocol\.violation/);
      expect(run.code).toBe(0);
      expect(statSync(path.join(ws, 'small.txt')).size).toBe(small.length);
      expect(readFileSync(path.join(ws, 'large.txt'), 'utf8')).toBe(large);
      const runId = /arbor: run (run_[0-9a-z]+)/.exec(run.stderr)?.[1] ?? '';
      const store = new SqliteStore(path.join(ws, '.arbor', 'arbor.db'));
      try {
        const kinds = store.listEvents(runId).map((event) => event.kind);
        expect(kinds).not.toContain('protocol.violation');
        expect(kinds).not.toContain('transcript.invalid');
        const [root] = store.listNodes(runId);
        // What a resume continues from: both calls, whole.
        const written = store
          .listTranscript(runId, root?.id ?? '')
          .flatMap((entry) =>
            entry.op === 'append' && entry.message.role === 'assistant'
              ? entry.message.tool_calls.map((call) => call.args.content)
              : [],
          );
        expect(written).toEqual([small, large]);
      } finally {
        store.close();
      }
    },
  );

  it('resumes a run killed right after a 3 MB call was recorded, without asking the model again', async () => {
    const large = 'c'.repeat(3_000_000);
    const dir = await resumeDir(
      steps(
        ...rounds(
          { tool_calls: [{ name: 'fs.write', args: { path: 'large.txt', content: large } }] },
          { text: 'written' },
        ),
      ),
    );
    // Killed at the model call that made the large call: its answer was recorded, not acted on.
    const crashed = await dir.run('Write it.', killAt('model-call:1'), ['--fs-write', '.']);
    expect(crashed.signal).toBe('SIGKILL');
    expect(dir.llm.requests).toHaveLength(1);
    const resumed = await dir.resume(runIdOf(crashed), ['--fs-write', '.']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('written\n');
    // The recorded call ran; the model was asked only for what came after it.
    expect(readFileSync(path.join(dir.dir, 'large.txt'), 'utf8')).toBe(large);
    expect(dir.llm.requests).toHaveLength(2);
  });
});
