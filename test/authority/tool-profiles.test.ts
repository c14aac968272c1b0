import { describe, expect, it } from 'vitest';
import { toolProfiles, type ToolProfile } from '../../src/authority/index.js';
import { everyBuiltinTool } from '../../src/tools/index.js';
import { testPayload } from '../helpers/payloads.js';

/** A node's payload and the lookup its child builds: built-ins declared, sources as registered. */
function profiles(grant: { net: 'all' | string[]; sandbox: 'bwrap' | 'off' }) {
  const payload = testPayload({
    caveats: { fs_read: 'all', fs_write: 'all', exec: ['npm test'], net: grant.net },
    sandbox: { mode: grant.sandbox },
    mcp_servers: [
      { name: 'web', command: 'web-server' },
      { name: 'vault', command: 'vault-server', tags: ['sensitive'] },
      { name: 'notes', command: 'notes-server', tags: ['sensitive'] },
      { name: 'fs', command: 'fs-server', tags: ['untrusted_input'] },
    ],
    routed_tools: [
      {
        name: 'gh.create',
        description: '',
        input_schema: { type: 'object' },
        server: 'gh',
        tags: ['egress'],
      },
    ],
    content_isolation: { untrusted_tools: ['notes.*'] },
  });
  const builtins = everyBuiltinTool({
    caveats: payload.caveats,
    cwd: '/work',
    sandbox: payload.sandbox,
    protect: [],
  });
  const declared = new Map(builtins.map((tool) => [tool.def.name, tool.trifecta]));
  const sources: Record<string, string> = {
    'web.search': 'mcp:web',
    'vault.get': 'mcp:vault',
    'notes.read': 'mcp:notes',
    'fs.read': 'builtin',
    'subagent.run': 'internal',
  };
  return toolProfiles(payload, {
    builtin: (name) => declared.get(name),
    sourceOf: (name) => sources[name],
  });
}

const NONE = { untrusted: false, egress: false, sensitive: false };

describe('toolProfiles', () => {
  it.each<[string, { net: 'all' | string[]; sandbox: 'bwrap' | 'off' }, ToolProfile]>([
    [
      'http.fetch',
      { net: [], sandbox: 'bwrap' },
      { ...NONE, untrusted: true, egress: true, source: 'http.fetch' },
    ],
    [
      'exec',
      { net: 'all', sandbox: 'bwrap' },
      { ...NONE, egress: true, exposes: true, source: 'exec with network' },
    ],
    [
      'exec',
      { net: [], sandbox: 'bwrap' },
      { ...NONE, exposes: false, source: 'exec with network' },
    ],
    [
      'exec',
      { net: [], sandbox: 'off' },
      { ...NONE, egress: true, exposes: true, source: 'exec with network' },
    ],
    ['fs.read', { net: 'all', sandbox: 'bwrap' }, { ...NONE, source: 'fs.read' }],
    ['fs.write', { net: 'all', sandbox: 'bwrap' }, { ...NONE, source: 'fs.write' }],
    [
      'web.search',
      { net: [], sandbox: 'bwrap' },
      { ...NONE, untrusted: true, egress: true, source: 'mcp:web' },
    ],
    ['vault.get', { net: [], sandbox: 'bwrap' }, { ...NONE, sensitive: true, source: 'mcp:vault' }],
    [
      'notes.read',
      { net: [], sandbox: 'bwrap' },
      { ...NONE, untrusted: true, sensitive: true, source: 'mcp:notes' },
    ],
    ['gh.create', { net: [], sandbox: 'bwrap' }, { ...NONE, egress: true, source: 'mcp:gh' }],
    ['subagent.run', { net: 'all', sandbox: 'bwrap' }, { ...NONE, source: 'subagent.run' }],
    ['nobody.knows', { net: 'all', sandbox: 'bwrap' }, { ...NONE, source: 'nobody.knows' }],
  ])('%s under net %j counts as declared', (name, grant, expected) => {
    expect(profiles(grant)(name)).toEqual(expected);
  });
});
