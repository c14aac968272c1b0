import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/protocol/index.js';
import { ToolRegistry, type Tool } from '../../src/tools/index.js';

const context = { signal: new AbortController().signal, callId: 'c1' };

function registryWith(
  name: string,
  schema: JsonObject,
): { registry: ToolRegistry; runs: number[] } {
  const runs: number[] = [];
  const tool: Tool = {
    def: { name, description: '', input_schema: schema },
    run: () => {
      runs.push(1);
      return Promise.resolve({ content: 'ran', isError: false });
    },
  };
  return {
    registry: new ToolRegistry({ sources: [{ kind: 'mcp', name: 'mcp:t', tools: () => [tool] }] }),
    runs,
  };
}

const READ_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    offset: { type: 'integer', minimum: 1 },
    mode: { enum: ['text', 'bytes'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2, uniqueItems: true },
    options: {
      type: 'object',
      properties: { depth: { type: 'number', maximum: 5 }, 'a/b': { type: 'boolean' } },
    },
    id: { pattern: '^[a-z]+$', type: 'string' },
    target: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    name: { type: 'string', maxLength: 3 },
  },
  required: ['path'],
  additionalProperties: false,
};

describe('argument validation messages', () => {
  it.each<[string, JsonObject, string]>([
    ['a wrong type', { path: 42 }, '`path`: expected string, got 42'],
    ['a missing field', {}, '`path`: required field is missing'],
    [
      'an unknown field',
      { path: 'a', colour: 'red' },
      '`colour`: unknown field (expected one of `path`, `offset`, `mode`, `tags`, `options`, `id`, `target`, `name`)',
    ],
    ['a minimum', { path: 'a', offset: 0 }, '`offset`: expected >= 1, got 0'],
    ['an integer', { path: 'a', offset: 1.5 }, '`offset`: expected integer, got 1.5'],
    ['an enum', { path: 'a', mode: 'hex' }, '`mode`: expected one of "text" | "bytes", got "hex"'],
    ['a minLength', { path: '' }, '`path`: expected at least 1 characters, got 0'],
    ['a maxLength', { path: 'a', name: 'abcd' }, '`name`: expected at most 3 characters, got 4'],
    ['an array item', { path: 'a', tags: ['x', 7] }, '`tags[1]`: expected string, got 7'],
    [
      'maxItems',
      { path: 'a', tags: ['x', 'y', 'z'] },
      '`tags`: expected at most 2 items, got an array of 3',
    ],
    [
      'uniqueItems',
      { path: 'a', tags: ['x', 'x'] },
      '`tags`: expected unique items, got duplicates at [0] and [1]',
    ],
    [
      'a nested field',
      { path: 'a', options: { depth: 9 } },
      '`options.depth`: expected <= 5, got 9',
    ],
    [
      'a key with a slash',
      { path: 'a', options: { 'a/b': 'yes' } },
      '`options.a/b`: expected boolean, got "yes"',
    ],
    ['a pattern', { path: 'a', id: 'A1' }, '`id`: expected a string matching /^[a-z]+$/, got "A1"'],
    ['an anyOf', { path: 'a', target: true }, '`target`: expected string or number, got true'],
  ])('names %s: what was expected and what came', async (_what, args, clause) => {
    const { registry, runs } = registryWith('fs.read', READ_SCHEMA);
    const out = await registry.call({ id: 'c1', name: 'fs.read', args }, context);
    expect(out).toEqual({
      content: `Invalid arguments for \`fs.read\`: ${clause}.`,
      isError: true,
      refused: true,
    });
    expect(runs).toHaveLength(0);
  });

  it('lists every bad field at once (allErrors)', async () => {
    const { registry } = registryWith('fs.read', READ_SCHEMA);
    const out = await registry.call(
      { id: 'c1', name: 'fs.read', args: { path: 42, offset: 'x' } },
      context,
    );
    expect(out.content).toBe(
      'Invalid arguments for `fs.read`: `path`: expected string, got 42; `offset`: expected integer, got "x".',
    );
  });

  it('runs the tool when the arguments fit', async () => {
    const { registry, runs } = registryWith('fs.read', READ_SCHEMA);
    const out = await registry.call(
      { id: 'c1', name: 'fs.read', args: { path: 'a', target: 3, options: { depth: 1 } } },
      context,
    );
    expect(out).toEqual({ content: 'ran', isError: false });
    expect(runs).toHaveLength(1);
  });

  it.each<[string, JsonObject]>([
    [
      'draft-07 with $schema',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { q: { type: 'string' } },
        required: ['q'],
      },
    ],
    [
      'draft 2020-12 with prefixItems',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { q: { type: 'string' }, pair: { prefixItems: [{ type: 'number' }] } },
        required: ['q'],
      },
    ],
    [
      'unknown keywords, unknown formats and a non-unicode pattern',
      {
        type: 'object',
        'x-vendor': true,
        properties: {
          q: { type: 'string', format: 'made-up', pattern: '^[\\w-]+$', examples: ['a'] },
        },
        required: ['q'],
      },
    ],
    [
      'an $id shared with another tool',
      { $id: 'https://example.com/args', type: 'object', required: ['q'] },
    ],
  ])('tolerates real-world schemas: %s', async (_what, schema) => {
    const { registry } = registryWith('t', schema);
    expect((await registry.call({ id: '1', name: 't', args: { q: 'ok' } }, context)).isError).toBe(
      false,
    );
    expect((await registry.call({ id: '2', name: 't', args: {} }, context)).content).toBe(
      'Invalid arguments for `t`: `q`: required field is missing.',
    );
  });

  it('validates 2020-12 keywords under the 2020-12 draft', async () => {
    const { registry } = registryWith('t', {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'number' }] } },
    });
    const out = await registry.call({ id: '1', name: 't', args: { pair: ['x'] } }, context);
    expect(out.content).toBe('Invalid arguments for `t`: `pair[0]`: expected number, got "x".');
  });

  it('lists a tool whose schema cannot compile, and fails its calls naming the schema', async () => {
    const { registry, runs } = registryWith('broken', {
      type: 'object',
      properties: { q: { type: 'strng' } },
    });
    expect(registry.definitions().map((d) => d.name)).toEqual(['broken']);
    const out = await registry.call({ id: '1', name: 'broken', args: { q: 'x' } }, context);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /^Tool `broken` cannot be called: its input schema is invalid \(.+\)\. This is a fault of the tool, not of your arguments\.$/,
    );
    expect(runs).toHaveLength(0);
  });

  it('two tools whose schemas share an $id both validate', async () => {
    const a: Tool = {
      def: {
        name: 'a',
        description: '',
        input_schema: { $id: 'https://example.com/shared.json', type: 'object', required: ['a'] },
      },
      run: () => Promise.resolve({ content: 'a', isError: false }),
    };
    const b: Tool = {
      def: {
        name: 'b',
        description: '',
        input_schema: { $id: 'https://example.com/shared.json', type: 'object', required: ['b'] },
      },
      run: () => Promise.resolve({ content: 'b', isError: false }),
    };
    const registry = new ToolRegistry({
      sources: [{ kind: 'mcp', name: 'm', tools: () => [a, b] }],
    });
    expect((await registry.call({ id: '1', name: 'a', args: { a: 1 } }, context)).isError).toBe(
      false,
    );
    expect((await registry.call({ id: '2', name: 'b', args: { b: 1 } }, context)).isError).toBe(
      false,
    );
    expect((await registry.call({ id: '3', name: 'b', args: { a: 1 } }, context)).content).toMatch(
      /`b`: required field is missing/,
    );
  });
});
