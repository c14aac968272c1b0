import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunFile, recordedTranscript } from '../../src/protocol/load-run-file.js';
import { replayTranscript, type TranscriptMessage } from '../../src/protocol/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { FakePromptCache } from '../../src/testing/fake-llm/anthropic-prompt-cache.js';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

/**
 * A thinking model on Anthropic's messages API, with tools, through `arbor run` and its process
 * child. The fake server plays the API: it answers each step with a signed thinking block and
 * refuses (400) a tool-use turn whose thinking came back dropped or altered, so the run finishes
 * only if arbor sends each block back as it came. The thinking holds a credential-shaped string,
 * which the scrubber must leave as it is (or the signature no longer verifies on a resume).
 */
const SHAPED = 'ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';
const THOUGHTS = [
  `List the directory first; the note said ${SHAPED}, which I will not repeat.`,
  'Now list it once more to be sure.',
  'Both listings agree.',
];
const FINAL = 'The directory was listed twice.';
const MIN_CACHE_TOKENS = 50;

const PLAYBOOK: PlaybookInput = {
  prompt_cache: { min_tokens: MIN_CACHE_TOKENS },
  scripts: [
    {
      steps: [
        { thinking: THOUGHTS[0], tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
        { thinking: THOUGHTS[1], tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
        { thinking: THOUGHTS[2], text: FINAL },
      ],
    },
  ],
};

interface SentBody {
  model: string;
  thinking?: unknown;
  messages: { role: string; content: { type: string; thinking?: string }[] }[];
}

describe('extended thinking with tools through `arbor run`', () => {
  it('sends each thinking block back as it came, and caches the growing prompt', async () => {
    const llm = await fakeLlm(PLAYBOOK);
    const dir = mkdtempSync(path.join(tmpdir(), 'arbor-thinking-'));
    const config = path.join(dir, 'arbor.toml');
    writeFileSync(
      config,
      [
        '[intelligence]',
        'model = "claude-e2e"',
        '[[intelligence.endpoint]]',
        `url = "${llm.url}"`,
        'dialect = "anthropic"',
        '[intelligence.endpoint.sampling]',
        'thinking_budget_tokens = 1024',
        '',
      ].join('\n'),
    );
    const db = path.join(dir, 'arbor.db');
    const run = await runArbor(
      [
        'run',
        '--config',
        config,
        '--db',
        db,
        '--sandbox',
        'off',
        '--json',
        '--events',
        'ndjson',
        'List.',
      ],
      { cwd: dir },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { run_id: string; result: string };
    expect(report.result).toBe(FINAL);

    // Three calls, all answered: none refused for a missing or altered thinking block.
    const calls = llm.requests.filter((r) => r.path === '/v1/messages');
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies = calls.map((r) => r.body as SentBody);
    expect(
      bodies.every((b) => JSON.stringify(b.thinking) === '{"type":"enabled","budget_tokens":1024}'),
    ).toBe(true);
    // Each assistant turn went back opening with its own thinking, the secret-shaped text intact.
    const firstThoughts = (body: SentBody): (string | undefined)[] =>
      body.messages.filter((m) => m.role === 'assistant').map((m) => m.content[0]?.thinking);
    expect(firstThoughts(bodies[1]!)).toEqual([THOUGHTS[0]]);
    expect(firstThoughts(bodies[2]!)).toEqual([THOUGHTS[0], THOUGHTS[1]]);

    // Prompt caching, as the fake server accounted each call: a write first, then reads of a
    // prefix that grows as the breakpoint moves down the transcript.
    const cache = new FakePromptCache();
    const accounts = bodies.map((body) => cache.account(body, MIN_CACHE_TOKENS, Date.now()));
    expect(accounts[0]?.read).toBe(0);
    expect(accounts[0]?.write5m).toBeGreaterThan(0);
    expect(accounts[1]?.read).toBeGreaterThan(0);
    expect(accounts[1]?.write5m).toBeGreaterThan(0);
    expect(accounts[2]?.read).toBeGreaterThan(accounts[1]?.read ?? 0);
    // arbor records each call's whole input, cached or not (the fake counts a request's JSON at
    // four characters a token): the server's uncached part plus the cache's reads and writes,
    // which alone are most of it, not the uncached part alone.
    const usage = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; input_tokens?: number })
      .filter((line) => line.event === 'usage')
      .map((line) => line.input_tokens ?? 0);
    expect(usage).toHaveLength(3);
    usage.forEach((recorded, index) => {
      const account = accounts[index];
      expect(recorded).toBeGreaterThan((account?.read ?? 0) + (account?.write5m ?? 0));
      // Re-encoding the recorded body may differ from the bytes sent by a character or two.
      const whole = Math.ceil(JSON.stringify(calls[index]?.body).length / 4);
      expect(Math.abs(recorded - whole)).toBeLessThanOrEqual(1);
    });

    // Stored byte for byte (a resume sends it back), shown nowhere a person reads.
    const store = readdirSync(dir)
      .filter((name) => name.startsWith('arbor.db'))
      .map((name) => readFileSync(path.join(dir, name)).toString('utf8'))
      .join('\n');
    expect(store).toContain(THOUGHTS[0]);
    for (const command of [
      ['transcript', report.run_id, '0', '--json'],
      ['transcript', report.run_id, '0'],
      ['show', report.run_id],
    ]) {
      const shown = await runArbor(['runs', ...command, '--db', db], { cwd: dir });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).not.toContain('List the directory first');
      expect(shown.stdout).not.toContain('signature');
    }

    // A plain export shows no thinking either: the text is stored unscrubbed (its signature must
    // match), so it leaves the store only when asked for.
    const plain = await runArbor(['runs', 'export', report.run_id, '--db', db], { cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('List the directory first');
    expect(plain.stdout).not.toContain('opaque_reasoning');

    // With --with-reasoning a run file carries each block apart (`opaque_reasoning`), for a replay
    // to send back: loaded, the transcript holds the blocks the store holds, byte for byte.
    const exported = await runArbor(
      ['runs', 'export', report.run_id, '--db', db, '--with-reasoning'],
      { cwd: dir },
    );
    expect(exported.code, exported.stderr).toBe(0);
    const { file } = loadRunFile(exported.stdout);
    expect(file.transcripts['0']?.some((m) => 'reasoning' in m)).toBe(false);
    const stored = new SqliteStore(db);
    const root = stored.listNodes(report.run_id).find((node) => node.path === '0');
    const kept = replayTranscript(stored.listTranscript(report.run_id, root?.id ?? ''));
    stored.close();
    const blocks = (messages: readonly TranscriptMessage[]): string[] =>
      messages.flatMap((m) =>
        m.role === 'assistant' && m.reasoning ? [JSON.stringify(m.reasoning)] : [],
      );
    expect(blocks(kept)).toHaveLength(3);
    expect(blocks(recordedTranscript(file, '0'))).toEqual(blocks(kept));
    expect(blocks(kept)[0]).toContain(THOUGHTS[0]);
  });
});
