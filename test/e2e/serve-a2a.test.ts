import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/index.js';
import type { PlaybookInput } from '../../src/testing/index.js';
import { toolResults } from '../api/helpers.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { attr, otlpReceiver } from '../helpers/otlp-receiver.js';
import { callRpc, serveProcess, userMessage } from '../helpers/serve.js';

/** Server B (the peer), then server A holding B as `[[a2a.peer]] b`. */
async function pair(
  a: PlaybookInput,
  b: PlaybookInput,
  peerUrl?: string,
  env: NodeJS.ProcessEnv = {},
) {
  const bLlm = await fakeLlm(b);
  const bDir = mkdtempSync(join(tmpdir(), 'arbor-peer-b-'));
  const peer = await serveProcess(['--intel', bLlm.url, '--model', 'm', '--sandbox', 'off'], {
    cwd: bDir,
    env,
  });
  const aLlm = await fakeLlm(a);
  const aDir = mkdtempSync(join(tmpdir(), 'arbor-peer-a-'));
  const config = join(aDir, 'arbor.toml');
  writeFileSync(
    config,
    `[[a2a.peer]]\nname = "b"\nurl = "${peerUrl ?? peer.url}"\ntoken = "env:PEER_B_TOKEN"\n`,
  );
  const front = await serveProcess(
    ['--intel', aLlm.url, '--model', 'm', '--sandbox', 'off', '--config', config],
    { cwd: aDir, env: { ...env, PEER_B_TOKEN: peer.token } },
  );
  return { front, aLlm, aDir, peer, bLlm };
}

/**
 * A front for a peer that serves its agent card with only the HTTP+JSON interface, at the front's
 * own address, and passes every other request through; `target` is the peer, set once it runs.
 */
async function restOnlyFront() {
  const target: { url?: string } = {};
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const upstream = new URL(req.url ?? '/', target.url);
    seen.push(`${req.method} ${upstream.pathname}`);
    const headers = { ...req.headers, host: upstream.host };
    const forward = http.request(upstream, { method: req.method, headers }, (reply) => {
      if (!upstream.pathname.startsWith('/.well-known/')) {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('end', () => {
        const card = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          supportedInterfaces: { url: string; protocolBinding: string }[];
        };
        card.supportedInterfaces = card.supportedInterfaces
          .filter((i) => i.protocolBinding === 'HTTP+JSON')
          .map((i) => ({ ...i, url: i.url.replace(new URL(i.url).origin, front) }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(card));
      });
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const front = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: front, target, seen, close: () => server.close() };
}

const delegate = (instruction: string) => ({
  tool_calls: [{ name: 'subagent.run', args: { provider: 'a2a', peer: 'b', instruction } }],
});

describe('the a2a provider: one arbor serve delegating to another', () => {
  it('sends the task to the peer, relays its progress into the tree, and returns its artifact, fenced, with its usage in the ledger', async () => {
    const { front, aLlm, aDir, peer } = await pair(
      { scripts: [{ steps: [delegate('Look this up for me.'), { text: 'A relays B' }] }] },
      {
        scripts: [
          { steps: [{ text: 'remote answer', usage: { input_tokens: 11, output_tokens: 7 } }] },
        ],
      },
    );
    const sent = await callRpc(front.url, front.token, 'SendMessage', {
      message: userMessage('Ask the peer.'),
    });
    const task = sent.result?.task;
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const seen = toolResults(aLlm.requests.at(-1)?.body).join('\n');
    expect(seen).toContain('remote answer');
    // The peer's answer reached the model inside the run's untrusted-content boundary.
    expect(seen).toMatch(/a sub-agent that read untrusted content/);
    const peerTasks = await callRpc(peer.url, peer.token, 'ListTasks', {});
    expect(peerTasks.result?.tasks?.[0]?.history?.[0]).toMatchObject({
      parts: [{ text: 'Look this up for me.' }],
    });

    const store = new SqliteStore(join(aDir, '.arbor', 'arbor.db'));
    try {
      const runId = String(task?.metadata?.['arbor/runId']);
      const remote = store.listNodes(runId).find((node) => node.provider === 'a2a');
      expect(remote?.status).toBe('completed');
      expect(remote?.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
      const kinds = store
        .listEvents(runId)
        .filter((e) => e.nodeId === remote?.id)
        .map((e) => e.kind);
      expect(kinds).toEqual(expect.arrayContaining(['a2a.task', 'a2a.status']));
    } finally {
      store.close();
    }
  });

  it("brings the peer's question to our root as a gate, and takes the answer back to the peer", async () => {
    const { front, bLlm } = await pair(
      { scripts: [{ steps: [delegate('Paint it.'), { text: 'A done' }] }] },
      {
        scripts: [
          {
            steps: [
              { tool_calls: [{ name: 'ask_human', args: { question: 'Which colour?' } }] },
              { text: 'painted' },
            ],
          },
        ],
      },
    );
    const asked = await callRpc(front.url, front.token, 'SendMessage', {
      message: userMessage('Get it painted.'),
    });
    const task = asked.result?.task;
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task?.status.message?.parts[0]?.text).toBe('b asks: Which colour?');
    const answered = await callRpc(front.url, front.token, 'SendMessage', {
      message: userMessage('Blue.', { taskId: task?.id, contextId: task?.contextId }),
    });
    expect(answered.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    // The answer reached the peer's model as its ask_human result.
    expect(toolResults(bLlm.requests.at(-1)?.body).join('\n')).toContain('Blue.');
  });

  it('cancels the remote task when the local task is cancelled', async () => {
    const { front, peer, bLlm } = await pair(
      { scripts: [{ steps: [delegate('Take forever.'), { text: 'never' }] }] },
      { scripts: [{ steps: [{ text: 'late', delay_ms: 60_000 }] }] },
    );
    const started = await callRpc(front.url, front.token, 'SendMessage', {
      message: userMessage('Start the slow thing.'),
      configuration: { returnImmediately: true },
    });
    await bLlm.waitForRequests(1);
    const cancelled = await callRpc(front.url, front.token, 'CancelTask', {
      id: started.result?.task?.id,
    });
    expect(cancelled.result?.status.state).toBe('TASK_STATE_CANCELED');
    const remote = await callRpc(peer.url, peer.token, 'ListTasks', {});
    expect(remote.result?.tasks?.[0]?.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('reaches a peer whose card offers only HTTP+JSON over that binding, with its token', async () => {
    const rest = await restOnlyFront();
    const { front, aLlm, peer } = await pair(
      { scripts: [{ steps: [delegate('Over REST, please.'), { text: 'A relays B' }] }] },
      { scripts: [{ steps: [{ text: 'remote answer over rest' }] }] },
      rest.url,
    );
    rest.target.url = peer.url;
    try {
      const sent = await callRpc(front.url, front.token, 'SendMessage', {
        message: userMessage('Ask the peer.'),
      });
      expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
      // Without its token the peer answers 401, and the tool result says the peer refused.
      expect(toolResults(aLlm.requests.at(-1)?.body).join('\n')).toContain(
        'remote answer over rest',
      );
      expect(rest.seen.some((line) => line.startsWith('POST /a2a/rest/'))).toBe(true);
      expect(rest.seen.some((line) => line.includes('/a2a/jsonrpc'))).toBe(false);
    } finally {
      rest.close();
    }
  });

  it('makes a peer that is down a tool error the agent can answer, never a crash', async () => {
    const { front, aLlm } = await pair(
      { scripts: [{ steps: [delegate('Anyone?'), { text: 'the peer was down' }] }] },
      { scripts: [{ steps: [{ text: 'unused' }] }] },
      'http://127.0.0.1:9',
    );
    const sent = await callRpc(front.url, front.token, 'SendMessage', {
      message: userMessage('Try the peer.'),
    });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(toolResults(aLlm.requests.at(-1)?.body).join('\n')).toMatch(
      /A2A peer `b` cannot be reached/,
    );
  });

  it("carries the trace to the peer: its run's span is a child of our a2a node's span", async () => {
    const collector = await otlpReceiver();
    const { front } = await pair(
      { scripts: [{ steps: [delegate('Look it up.'), { text: 'A relays B' }] }] },
      { scripts: [{ steps: [{ text: 'remote answer' }] }] },
      undefined,
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    );
    const sent = await callRpc(front.url, front.token, 'SendMessage', {
      message: userMessage('Ask B.'),
    });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    // Spans are exported within a second of ending.
    await expect
      .poll(() => collector.spans.filter((s) => s.name === 'arbor run').length, { timeout: 10_000 })
      .toBe(2);
    const remoteNode = collector.spans.find((s) => attr(s, 'arbor.provider') === 'a2a');
    const runs = collector.spans.filter((s) => s.name === 'arbor run');
    const peerRun = runs.find((s) => s.parentSpanId === remoteNode?.spanId);
    expect(peerRun).toBeDefined();
    expect(new Set(collector.spans.map((s) => s.traceId)).size).toBe(1);
  });

  it('refuses a peer the caller does not hold', async () => {
    const { front, aLlm } = await pair(
      {
        scripts: [
          {
            steps: [
              {
                tool_calls: [
                  { name: 'subagent.run', args: { provider: 'a2a', peer: 'c', instruction: 'x' } },
                ],
              },
              { text: 'refused' },
            ],
          },
        ],
      },
      { scripts: [{ steps: [{ text: 'unused' }] }] },
    );
    await callRpc(front.url, front.token, 'SendMessage', { message: userMessage('Use peer c.') });
    expect(toolResults(aLlm.requests.at(-1)?.body).join('\n')).toMatch(
      /unknown A2A peer `c` \(yours: `b`\)/,
    );
  });
});
