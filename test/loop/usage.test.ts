import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/loop/index.js';
import type { ToolDef, TranscriptMessage } from '../../src/protocol/index.js';

describe('estimateTokens', () => {
  const messages: TranscriptMessage[] = [{ role: 'user', text: 'List the files, please.' }];
  const schema = { type: 'object', properties: { path: { type: 'string' } } };
  const tools: ToolDef[] = [
    { name: 'fs.list', description: 'List a directory.', input_schema: schema },
    { name: 'fs.read', description: 'Read a file.', input_schema: schema },
  ];
  const exact = (defs: readonly ToolDef[]): number => {
    let chars = 'You help.'.length;
    for (const message of messages) chars += JSON.stringify(message).length;
    for (const tool of defs) chars += JSON.stringify(tool).length;
    return Math.ceil(chars / 4) + 4 * messages.length;
  };

  it('counts four characters per token of the request as it is sent, tools included', () => {
    expect(estimateTokens('You help.', messages, tools)).toBe(exact(tools));
    // A schema shared by several tools (measured once) still counts for each of them.
    expect(estimateTokens('You help.', messages, [tools[0]!])).toBe(exact([tools[0]!]));
  });

  it('counts a longer description or schema in a new definition', () => {
    const longer: ToolDef[] = [
      {
        name: 'fs.list',
        description: 'List a directory, with its entries sorted by name.',
        input_schema: { ...schema, required: ['path'] },
      },
    ];
    expect(estimateTokens('You help.', messages, longer)).toBe(exact(longer));
  });
});
