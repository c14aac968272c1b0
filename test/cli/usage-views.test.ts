import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderNode } from '../../src/cli/live-tree.js';
import { splitText, usageText } from '../../src/cli/runs-view.js';
import { summarize } from '../../src/dashboard/run-views.js';
import {
  redactPayload,
  RunSummarySchema,
  usageFromMetadata,
  usageToMetadata,
  type Usage,
} from '../../src/protocol/index.js';
import { eventOf } from '../../src/runtime/index.js';
import { ServeMetrics } from '../../src/serve/serve-metrics.js';
import { SqliteStore } from '../../src/store/index.js';
import { Tree, type NodeRecord } from '../../src/supervisor/index.js';
import { testPayload } from '../helpers/payloads.js';
import { runArbor } from '../helpers/run-arbor.js';

const CACHED: Usage = {
  input_tokens: 1_000,
  output_tokens: 200,
  cache_read_tokens: 900,
  cache_write_tokens: 50,
  cache_write_1h_tokens: 20,
  reasoning_tokens: 40,
  cost_usd: 0.0031,
};

function nodeRecord(id: string, path: string, usage: Usage, parentId?: string): NodeRecord {
  return {
    runId: 'run_1',
    id,
    path,
    depth: path.split('.').length - 1,
    ...(parentId === undefined ? {} : { parentId }),
    provider: 'process',
    instruction: `Node ${path}`,
    status: 'completed',
    payload: redactPayload(
      testPayload({ intelligence: { endpoints: [{ url: 'http://127.0.0.1:9/v1' }], model: 'm' } }),
    ),
    attempts: 1,
    createdAt: 1_000,
    endedAt: 2_000,
    usage,
  };
}

describe('cache and reasoning tokens in every view', () => {
  it('arbor runs show them beside the totals, and leaves a usage without them as it was', () => {
    expect(usageText(CACHED)).toBe(
      '1000+200 tok (900 cached, 50 cache write, 40 reasoning) $0.0031',
    );
    expect(usageText({ input_tokens: 10, output_tokens: 2 })).toBe('10+2 tok');
    expect(
      splitText({ input_tokens: 5_000, output_tokens: 0, cache_read_tokens: 4_200 }, true),
    ).toBe(' (4.2k cached)');
  });

  it('the live tree shows them on a node', () => {
    const tree = new Tree();
    const root = tree.mintRoot('Answer', 0);
    root.usage = {
      input_tokens: 1_000,
      output_tokens: 200,
      cache_read_tokens: 900,
      cost_usd: 0.0031,
    };
    expect(renderNode(root, 1_000)).toContain('1.2k tok (900 cached) $0.0031');
  });

  it('a run’s summary (arbor runs --json, the dashboard) sums them over its nodes', () => {
    const summary = summarize(
      { id: 'run_1', instruction: 'x', status: 'completed', createdAt: 1_000, meta: {} },
      [
        nodeRecord('n0', '0', CACHED),
        nodeRecord('n1', '0.1', { input_tokens: 10, output_tokens: 1, cache_read_tokens: 5 }, 'n0'),
      ],
    );
    expect(RunSummarySchema.parse(summary)).toMatchObject({
      input_tokens: 1_010,
      output_tokens: 201,
      cache_read_tokens: 905,
      cache_write_tokens: 50,
      cache_write_1h_tokens: 20,
      reasoning_tokens: 40,
      cost_usd: 0.0031,
    });
  });

  it('the run event `usage` carries them in camelCase', () => {
    const event = eventOf({ type: 'usage', nodeId: 'n0', usage: CACHED }, 'run_1', () => '0');
    expect(event).toMatchObject({
      type: 'usage',
      inputTokens: 1_000,
      outputTokens: 200,
      cacheReadTokens: 900,
      cacheWriteTokens: 50,
      cacheWrite1hTokens: 20,
      reasoningTokens: 40,
      costUsd: 0.0031,
    });
  });

  it('A2A task usage carries them, and a node relaying to a peer reads them back', () => {
    const metadata = usageToMetadata(CACHED);
    expect(metadata).toEqual({
      inputTokens: 1_000,
      outputTokens: 200,
      cacheReadTokens: 900,
      cacheWriteTokens: 50,
      cacheWrite1hTokens: 20,
      reasoningTokens: 40,
      costUsd: 0.0031,
    });
    expect(usageFromMetadata(metadata)).toEqual(CACHED);
    // A peer before 0.2 (snake_case), and counts that are not counts.
    expect(usageFromMetadata({ input_tokens: 7, output_tokens: 1, cacheReadTokens: -3 })).toEqual({
      input_tokens: 7,
      output_tokens: 1,
    });
    expect(usageFromMetadata('nonsense')).toBeUndefined();
    expect(usageFromMetadata({ inputTokens: 0, outputTokens: 0 })).toBeUndefined();
  });

  it('/metrics counts them by type beside the token totals', async () => {
    const metrics = new ServeMetrics();
    metrics.observe(eventOf({ type: 'usage', nodeId: 'n0', usage: CACHED }, 'run_1', () => '0'));
    metrics.observe(
      eventOf(
        { type: 'usage', nodeId: 'n0', usage: { input_tokens: 5, output_tokens: 1 } },
        'run_1',
        () => '0',
      ),
    );
    const { body } = await metrics.text();
    expect(body).toContain('arbor_tokens_total{direction="input"} 1005');
    expect(body).toContain('arbor_token_splits_total{type="cache_read"} 900');
    expect(body).toContain('arbor_token_splits_total{type="cache_write"} 50');
    expect(body).toContain('arbor_token_splits_total{type="cache_write_1h"} 20');
    expect(body).toContain('arbor_token_splits_total{type="reasoning"} 40');
  });

  it('arbor runs and arbor runs show print them from the store', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'arbor-views-')), 'arbor.db');
    const store = new SqliteStore(db);
    store.createRun({
      id: 'run_1',
      instruction: 'Cache it.',
      status: 'completed',
      createdAt: 1_000,
      meta: {},
    });
    store.createNode(nodeRecord('n0', '0', { input_tokens: 0, output_tokens: 0 }));
    store.addUsage('run_1', 'n0', CACHED);
    store.finishRun('run_1', 'completed', 2_000);
    store.close();
    const list = await runArbor(['runs', 'list', '--db', db]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('1000+200 (900 cached, 50 cache write, 40 reasoning)');
    const show = await runArbor(['runs', 'show', 'run_1', '--db', db]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(
      '1000+200 tok (900 cached, 50 cache write, 40 reasoning) $0.0031',
    );
  });
});
