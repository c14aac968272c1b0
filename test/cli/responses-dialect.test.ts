import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/testing/index.js';
import { killAt } from '../helpers/arbor-process.js';
import { readRun, resumeDir, runIdOf } from '../helpers/resume-run.js';

/**
 * `arbor run --dialect openai-responses` against the fake playing a reasoning model: each answer
 * carries an encrypted reasoning item, and the fake refuses (400) a later request that sends a
 * tool call back without the reasoning that led to it. A run that completes has carried it.
 */
const TOOL_STEPS = {
  scripts: [
    {
      steps: [
        { text: 'First look.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
        { text: 'Second look.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
        { text: 'Done: the directory is listed.' },
      ],
    },
  ],
};

const ARGS = ['--dialect', 'openai-responses', '--model', 'o4-mini'];

interface InputItem {
  type?: string;
  id?: string;
  call_id?: string;
  encrypted_content?: string;
}

function inputOf(request: RecordedRequest | undefined): InputItem[] {
  return (request?.body as { input?: InputItem[] } | undefined)?.input ?? [];
}

/** Each function_call of a request with the reasoning item right before it (or undefined). */
function callsWithReasoning(request: RecordedRequest | undefined) {
  const input = inputOf(request);
  return input.flatMap((item, index) => {
    if (item.type !== 'function_call') return [];
    const before = input.slice(0, index).reverse();
    const reasoning = before.find(
      (each) => each.type === 'reasoning' || each.type === 'function_call_output',
    );
    return [
      { call: item.call_id, reasoning: reasoning?.type === 'reasoning' ? reasoning.id : undefined },
    ];
  });
}

describe('arbor run --dialect openai-responses', () => {
  it('completes a tool-using run of a reasoning model, sending its encrypted reasoning back each step', async () => {
    const dir = await resumeDir(TOOL_STEPS);
    const run = await dir.run('List the directory twice.', {}, ARGS);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Done: the directory is listed.');
    const requests = dir.llm.requests;
    expect(requests.map((r) => [r.path, r.status])).toEqual([
      ['/v1/responses', 200],
      ['/v1/responses', 200],
      ['/v1/responses', 200],
    ]);
    for (const request of requests) {
      expect(request.body).toMatchObject({
        model: 'o4-mini',
        store: false,
        include: ['reasoning.encrypted_content'],
      });
      expect(request.headers).not.toHaveProperty('authorization');
    }
    // The last request holds the whole conversation: each call after the reasoning of its step.
    expect(callsWithReasoning(requests[2])).toEqual([
      { call: 'call_1', reasoning: 'rs_1' },
      { call: 'call_2', reasoning: 'rs_2' },
    ]);
  });

  it('a resumed run sends back the reasoning its transcript recorded before the kill', async () => {
    const dir = await resumeDir(TOOL_STEPS);
    const crashed = await dir.run('List the directory twice.', killAt('model-call:1'), ARGS);
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const runId = runIdOf(crashed);
    const records = readRun(dir.db, runId);
    const recorded = records.transcripts.get(records.nodes[0]?.id ?? '') ?? [];
    const assistant = recorded.flatMap((entry) =>
      entry.op === 'append' && entry.message.role === 'assistant' ? [entry.message] : [],
    );
    // The first step's answer is in the store with its reasoning item, byte for byte.
    const first = dir.llm.requests.length;
    const sent = dir.llm.requests[0]?.status === 200 ? assistant[0]?.reasoning : undefined;
    expect(sent).toMatchObject({ dialect: 'openai-responses', model: 'o4-mini' });

    const resumed = await dir.resume(runId, ARGS);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Done: the directory is listed.');
    const after = dir.llm.requests.slice(first);
    expect(after.length).toBeGreaterThan(0);
    for (const request of after) expect(request.status).toBe(200);
    // The resumed run's first request replays the recorded step: its call after its reasoning.
    expect(callsWithReasoning(after[0])[0]).toEqual({ call: 'call_1', reasoning: 'rs_1' });
    const replayed = inputOf(after[0]).find((item) => item.id === 'rs_1');
    expect(replayed?.encrypted_content).toBe(
      (sent?.blocks[0] as InputItem | undefined)?.encrypted_content,
    );
  });
});
