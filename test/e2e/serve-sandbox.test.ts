import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import { describeWithSandbox } from '../helpers/sandbox.js';
import { rpc, serveProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';
import { toolResults } from '../api/helpers.js';

describeWithSandbox('arbor serve and the agents it runs', () => {
  it('a sandboxed exec with the network can neither read the operator token nor create a task or answer a gate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-serve-sandbox-'));
    const llm = await fakeLlm({ scripts: [{ steps: [{ text: 'placeholder' }] }] });
    const { proc, url, token } = await serveProcess(
      [
        '--intel',
        llm.url,
        '--model',
        'm',
        '--exec',
        'all',
        '--net',
        'all',
        '--sandbox',
        'required',
        // The host's own network, the widest a command can get: through the egress proxy it
        // could not reach the server's loopback address at all.
        '--sandbox-network',
        'host',
      ],
      { cwd: dir },
    );
    // What the command tries: read the token file (where it is, and where it used to be), then
    // call the server without it.
    const file = /operator token \(written to ([^)]+)\)/.exec(proc.stderr)?.[1] ?? '';
    expect(file).not.toBe('');
    const probe = [
      `cat ${file} || echo no-token-file;`,
      'cat .arbor/serve-token || echo no-old-token-file;',
      `node -e 'for (const method of ["SendMessage", "GetTask"]) fetch("${url}/a2a/jsonrpc", { method: "POST", headers: { "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { message: { messageId: "x", taskId: "t", role: "ROLE_USER", parts: [{ text: "yes" }] }, id: "t" } }) }).then((r) => console.log(method, r.status), (e) => console.log(method, "error", e.message))'`,
    ].join(' ');
    llm.setPlaybook({
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'exec', args: { command: probe } }] },
            { tool_calls: [{ name: 'ask_human', args: { question: 'Go on?' } }] },
            { text: 'done' },
          ],
        },
      ],
    });
    const response = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
      body: rpc('SendMessage', { message: userMessage('Probe the server.') }),
    });
    const asked = (await response.json()) as RpcAnswer;
    expect(asked.result?.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const results = toolResults(llm.requests.at(-1)?.body).join('\n');
    expect(results).not.toContain(token);
    expect(results).toContain('no-token-file');
    expect(results).toContain('no-old-token-file');
    expect(results).toMatch(/SendMessage 401/);
    expect(results).toMatch(/GetTask 401/);
  });
});
