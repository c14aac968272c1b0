import { describe, expect, it } from 'vitest';
import { loadRunFile, recordedTranscript } from '../../src/protocol/load-run-file.js';
import { isArborError } from '../../src/protocol/index.js';
import type { RunFile } from '../../src/protocol/run-file.js';

const USAGE = { input_tokens: 10, output_tokens: 5 };

function node(path: string, depth: number) {
  return {
    node_id: `n${path.length}`,
    path,
    depth,
    provider: 'process',
    status: 'completed',
    instruction: 'Look.',
    usage: USAGE,
    subtree_usage: USAGE,
  };
}

/**
 * An Anthropic thinking block as the API sends it: text with escapes, quotes and a non-BMP
 * character, and an opaque signature. A replay must send it back exactly as it came.
 */
const THINKING = {
  type: 'thinking',
  thinking: 'Line one.\n\tTab, "quotes", a backslash \\ and 🌳 — then \u2028 a separator.',
  signature: 'EqQBCkgIARABGAIiQL+/sig==',
};

/** A run of three nodes as `arbor runs export` writes it, without the fields older files lack. */
function v0Document() {
  return {
    run_id: 'r1',
    status: 'completed',
    instruction: 'Look.',
    created_at: '2026-01-01T00:00:00.000Z',
    nodes: [node('0', 0), node('0.1', 1), node('0.2', 1)],
    input_tokens: 30,
    output_tokens: 15,
    meta: {},
    events: [{ ts: '2026-01-01T00:00:00.000Z', run_id: 'r1', event: 'run.start', x: 1 }],
    gates: [],
    transcripts: { '0': [{ role: 'user', text: 'Look.' }] },
  };
}

function v1Document(): RunFile {
  return {
    format: 'arbor.run/1',
    arbor_version: '0.1.0',
    ...v0Document(),
    transcripts: {
      '0': [
        { role: 'user', text: 'Look.' },
        {
          role: 'assistant',
          text: 'Looked.',
          tool_calls: [],
          opaque_reasoning: { dialect: 'anthropic', model: 'claude-x', blocks: [THINKING] },
        },
      ],
    },
    model_calls: {
      '0': [
        {
          call: 1,
          step: 1,
          endpoint: 0,
          model: 'claude-x',
          model_asked: 'claude-x',
          sampling: { temperature: 0.2 },
          tools_digest: 'abcd',
        },
      ],
    },
    tools: { abcd: [{ name: 'fs.list', description: 'List.', input_schema: { type: 'object' } }] },
  };
}

function loadError(text: string): string {
  try {
    loadRunFile(text);
  } catch (error) {
    expect(isArborError(error, 'run_file_invalid')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the file to be refused');
}

describe('loadRunFile', () => {
  it('reads a file it wrote back as it was', () => {
    const text = JSON.stringify(v1Document(), null, 2);
    const loaded = loadRunFile(text);
    expect(loaded).toEqual({ version: 1, notes: [], file: v1Document() });
  });

  it('keeps a thinking block byte for byte, apart from the shown messages', () => {
    const text = JSON.stringify(v1Document(), null, 2);
    const { file } = loadRunFile(text);
    expect(JSON.stringify(file, null, 2)).toBe(text);
    const [, answer] = recordedTranscript(file, '0');
    expect(answer?.role === 'assistant' && answer.reasoning).toEqual({
      dialect: 'anthropic',
      model: 'claude-x',
      blocks: [THINKING],
    });
    expect(
      JSON.stringify(answer?.role === 'assistant' ? answer.reasoning?.blocks[0] : undefined),
    ).toBe(JSON.stringify(THINKING));
    expect(answer).not.toHaveProperty('opaque_reasoning');
    expect(recordedTranscript(file, '9.9')).toEqual([]);
  });

  it.each([
    ['a truncated file', '{"run_id": "r1", "nodes": [', /is not JSON at its end \(character 27\)/],
    ['a bad character', '{"run_id" 1}', /is not JSON at character 10 \(line 1, column 11\)/],
    ['an array', '[]', /is not a run file: expected a JSON object, got an array\./],
    ['an object with no format', '{"hello": 1}', /is not a run file: it has no `format`/],
    [
      'an unknown format',
      '{"format": "other/1"}',
      /is not a run file: unknown format `other\/1` \(expected `arbor\.run\/1`\)/,
    ],
  ])('refuses %s, saying what it is', (_name, text, message) => {
    expect(loadError(text)).toMatch(message);
  });

  it('refuses a file of a newer format, naming both versions', () => {
    const text = JSON.stringify({ ...v1Document(), format: 'arbor.run/2' });
    expect(loadError(text)).toBe(
      'the run file was written by a newer arbor: format arbor.run/2; this arbor reads arbor.run/1.',
    );
  });

  it('refuses a corrupt document, naming each field that is wrong', () => {
    const document = v1Document();
    const nodes: unknown[] = [...document.nodes];
    nodes[2] = { ...document.nodes[2], path: 7 };
    const message = loadError(
      JSON.stringify({ ...document, nodes, model_calls: { '0': [{ call: 0 }] } }),
    );
    expect(message).toMatch(/^the run file is a corrupt run file: /);
    expect(message).toContain('`nodes[2].path`: expected a string');
    expect(message).toContain('`model_calls.0[0].call`');
  });

  it('loads an export made before run files had a format as version 0, saying what it lacks', () => {
    const loaded = loadRunFile(JSON.stringify(v0Document()));
    expect(loaded.version).toBe(0);
    expect(loaded.notes).toEqual([expect.stringContaining('no per-call records')]);
    expect(loaded.file).toMatchObject({
      run_id: 'r1',
      model_calls: {},
      tools: {},
      arbor_version: 'unknown',
    });
    expect(loaded.file.nodes.map((n) => n.path)).toEqual(['0', '0.1', '0.2']);
  });
});
