import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import { callRpc, serveProcess } from '../helpers/serve.js';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { runIdOf } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';

describe('arbor replay: a node on an A2A peer', () => {
  it('stands with its recorded answer under recorded tool results: the peer is not contacted', async () => {
    const bLlm = await fakeLlm({ scripts: [{ steps: [{ text: 'remote answer' }] }] });
    const peer = await serveProcess(['--intel', bLlm.url, '--model', 'm', '--sandbox', 'off'], {
      cwd: mkdtempSync(join(tmpdir(), 'arbor-peer-b-')),
    });
    const aLlm = await fakeLlm({
      scripts: [
        {
          steps: [
            {
              tool_calls: [
                {
                  name: 'subagent.run',
                  args: { provider: 'a2a', peer: 'b', instruction: 'Look this up.' },
                },
              ],
            },
            { text: 'A relays: remote answer' },
          ],
        },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'arbor-replay-a2a-'));
    const config = join(dir, 'arbor.toml');
    writeFileSync(
      config,
      `[[a2a.peer]]\nname = "b"\nurl = "${peer.url}"\ntoken = "env:PEER_B_TOKEN"\n`,
    );
    const env = { ...FAST_ENV, ARBOR_DB: join(dir, 'a.db'), PEER_B_TOKEN: peer.token };
    const run = await runArbor(
      ['run', '--intel', aLlm.url, '--model', 'm', '--config', config, 'Ask the peer.'],
      { cwd: dir, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const peerCalls = bLlm.requests.length;
    const peerTasks = (await callRpc(peer.url, peer.token, 'ListTasks', {})).result?.tasks?.length;
    expect(peerCalls).toBe(1);

    const replay = await runArbor(
      ['replay', runIdOf(run), '--config', config, '--events', 'none'],
      {
        cwd: dir,
        env,
      },
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(run.stdout);
    expect(replay.stderr).toContain('no divergence');
    expect(bLlm.requests.length).toBe(peerCalls);
    const after = (await callRpc(peer.url, peer.token, 'ListTasks', {})).result?.tasks?.length;
    expect(after).toBe(peerTasks);
  });
});
