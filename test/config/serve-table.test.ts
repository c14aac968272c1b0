import { describe, expect, it } from 'vitest';
import { ServeTableSchema } from '../../src/config/serve-table.js';
import { formatIssues } from '../../src/protocol/index.js';

function problems(table: unknown): string | undefined {
  const parsed = ServeTableSchema.safeParse(table, { reportInput: true });
  return parsed.success ? undefined : formatIssues(parsed.error.issues);
}

describe('[serve] as the config file gives it', () => {
  it.each([
    [
      'an on_gate URL that is not http',
      { on_gate: { url: 'ftp://hooks.example.com/gate' } },
      '`on_gate.url`: only http: and https: URLs are called, not `ftp:`',
    ],
    [
      'an on_gate URL to cloud metadata',
      { on_gate: { url: 'http://169.254.169.254/latest/meta-data' } },
      '`on_gate.url`: 169.254.169.254 resolves to a link-local address (cloud metadata services live there); only a `[serve] webhook_allow` entry naming it allows that',
    ],
    [
      'an on_gate URL to loopback, spelled as IPv6',
      { on_gate: { url: 'http://[::127.0.0.1]:9000/gate' } },
      '`on_gate.url`: ::7f00:1 resolves to an IPv4-compatible address (deprecated; it embeds 127.0.0.1); only a `[serve] webhook_allow` entry naming it allows that',
    ],
    [
      'an on_gate URL with credentials',
      { on_gate: { url: 'https://me:secret@hooks.example.com/' } },
      '`on_gate.url`: a URL with a user name or password in it is not called',
    ],
    [
      'a body limit under 1 KiB',
      { max_body_bytes: 10 },
      '`max_body_bytes`: expected number >= 1024, got 10',
    ],
    [
      'a body limit past one frame',
      { max_body_bytes: 64 * 1024 * 1024 },
      '`max_body_bytes`: expected number <= 16777216, got 67108864',
    ],
    [
      'a file limit of 0 bytes',
      { max_file_bytes: 0 },
      '`max_file_bytes`: expected number >= 1, got 0',
    ],
  ])('refuses %s, naming the key', (_name, table, message) => {
    expect(problems(table)).toBe(message);
  });

  it.each([
    [{ on_gate: { url: 'https://hooks.example.com/gate' } }],
    [{ on_gate: { url: 'http://127.0.0.1:9000/gate' }, webhook_allow: ['127.0.0.1:9000'] }],
    [{ max_body_bytes: 16 * 1024 * 1024 }],
    [{ max_file_bytes: 65536 }],
    [{}],
  ])('takes %j', (table) => {
    expect(problems(table)).toBeUndefined();
  });
});

describe('docs/serve.md on triggers', () => {
  it('gives setup_tool as a field of mcp_resource, which is what the schema takes', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('smol-toml');
    const doc = readFileSync(new URL('../../docs/serve.md', import.meta.url), 'utf8');
    const line = doc.split('\n').find((l) => l.trim().startsWith('`mcp_resource = {'));
    expect(line).toBeDefined();
    const inline = (line ?? '').trim().replace(/^`|`\.?$/g, '');
    const trigger = { name: 'spec', instruction: 'x', ...parse(inline) };
    expect(problems({ trigger: [trigger] })).toBeUndefined();
    expect(
      problems({
        trigger: [
          {
            name: 'spec',
            instruction: 'x',
            mcp_resource: { server: 's', uri: 'u' },
            setup_tool: 't',
          },
        ],
      }),
    ).toBeDefined();
  });
});
