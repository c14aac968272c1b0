import { readFileSync, mkdtempSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import { rpc, serveProcess, userMessage } from '../helpers/serve.js';

/** A self-signed certificate for `localhost` and 127.0.0.1, for these tests only. */
const CERT = fileURLToPath(new URL('../fixtures/tls/cert.pem', import.meta.url));
const KEY = fileURLToPath(new URL('../fixtures/tls/key.pem', import.meta.url));

function https(
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, ca: readFileSync(CERT) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('arbor serve over TLS', () => {
  it('serves the card and A2A over HTTPS with --tls-cert and --tls-key', async () => {
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'over TLS' }] }] });
    const { url, token } = await serveProcess(
      [
        '--intel',
        llm.url,
        '--model',
        'm',
        '--sandbox',
        'off',
        '--tls-cert',
        CERT,
        '--tls-key',
        KEY,
      ],
      { cwd: mkdtempSync(join(tmpdir(), 'arbor-serve-tls-')) },
    );
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const card = JSON.parse((await https(`${url}/.well-known/agent-card.json`)).body) as {
      supportedInterfaces: { url: string }[];
    };
    expect(card.supportedInterfaces[0]?.url).toBe(`${url}/a2a/jsonrpc`);
    const sent = await https(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'a2a-version': '1.0',
        'content-type': 'application/json',
      },
      body: rpc('SendMessage', { message: userMessage('Say it over TLS.') }),
    });
    expect(sent.body).toContain('TASK_STATE_COMPLETED');
    expect(sent.body).toContain('over TLS');
    // Plain HTTP to the TLS port is not served.
    await expect(fetch(url.replace('https:', 'http:') + '/healthz')).rejects.toThrow();
  });
});
