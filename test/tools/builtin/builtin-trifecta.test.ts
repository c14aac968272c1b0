import { describe, expect, it } from 'vitest';
import { checkTrifecta, countedAtSpawn } from '../../../src/authority/index.js';
import type { Caveats, SandboxSettings } from '../../../src/protocol/index.js';
import {
  EXEC_OFFLINE_TAGS,
  EXEC_TRIFECTA_TAGS,
  HTTP_FETCH_TAGS,
  builtinTools,
  everyBuiltinTool,
} from '../../../src/tools/index.js';
import { caveats } from '../../helpers/builtin-tools.js';

function grant(over: Partial<Caveats>, sandbox: SandboxSettings = { mode: 'bwrap' }) {
  return { caveats: caveats(over), cwd: '/work', sandbox, protect: [] };
}

const declared = (tools: ReturnType<typeof everyBuiltinTool>) =>
  tools.map((tool) => [tool.def.name, tool.trifecta?.tags]);

describe('the built-in tools declare their trifecta', () => {
  it.each<[string, Partial<Caveats>, SandboxSettings, readonly string[]]>([
    ['with the network', { net: 'all' }, { mode: 'bwrap' }, EXEC_TRIFECTA_TAGS],
    [
      'under a host list, through the egress proxy',
      { net: ['example.com'] },
      { mode: 'bwrap' },
      EXEC_TRIFECTA_TAGS,
    ],
    ['in the sandbox without network', { net: [] }, { mode: 'bwrap' }, EXEC_OFFLINE_TAGS],
    ['without a sandbox', { net: [] }, { mode: 'off' }, EXEC_TRIFECTA_TAGS],
  ])('every one, offered or not, %s', (_case, over, sandbox, execTags) => {
    expect(declared(everyBuiltinTool(grant({ ...over, exec: [] }, sandbox)))).toEqual([
      ['fs.read', []],
      ['fs.list', []],
      ['fs.glob', []],
      ['fs.write', []],
      ['fs.edit', []],
      ['exec', execTags],
      ['http.fetch', HTTP_FETCH_TAGS],
    ]);
  });

  it('offers only what the grant grants, each tool with its declaration', () => {
    const offered = builtinTools(grant({ fs_write: [], exec: ['npm test'], net: [] })).tools();
    expect(declared(offered)).toEqual([
      ['fs.read', []],
      ['fs.list', []],
      ['fs.glob', []],
      ['exec', EXEC_OFFLINE_TAGS],
    ]);
  });

  it('counts exec at spawn and leaves http.fetch to the runtime trifecta', () => {
    const offered = builtinTools(grant({ exec: ['npm test'], net: 'all' })).tools();
    const tools = offered.map((tool) => ({ name: tool.def.name, trifecta: tool.trifecta }));
    const counted = countedAtSpawn(tools).filter((source) => source.tags.length > 0);
    expect(counted).toEqual([{ name: 'exec', tags: EXEC_TRIFECTA_TAGS }]);
    const servers = [{ name: 'files', tags: [] }];
    const check = checkTrifecta(servers, { allow: false, extraTags: countedAtSpawn(tools) });
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.message).toMatch(
      /^holding untrusted_input \(files: untagged\), sensitive \(exec\) and egress \(exec\) together is refused; /,
    );
  });
});
