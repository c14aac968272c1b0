import { describe, expect, it } from 'vitest';
import {
  payloadSecrets,
  redactPayload,
  REDACTED,
  SpawnPayloadSchema,
  type NetCredential,
} from '../../src/protocol/index.js';
import { admitSpawn, Tree } from '../../src/supervisor/index.js';
import { mintPayload } from '../../src/supervisor/spawn/mint-payload.js';
import { SpawnRate } from '../../src/supervisor/spawn/spawn-rate.js';

const TOKEN = 'ghp_brokered0123456789abcdefTOKEN';
const GITHUB: NetCredential = {
  host: 'api.github.com',
  header: 'authorization',
  value: `Bearer ${TOKEN}`,
};
const LOCAL: NetCredential = {
  host: '127.0.0.1',
  port: 8080,
  header: 'x-api-key',
  value: 'k'.repeat(20),
};

/** A root minted from a template holding both credentials under `net`, and its tree. */
function root(net: string[] | 'all') {
  const tree = new Tree();
  const node = tree.mintRoot('root', 0);
  const payload = mintPayload('r', node, {
    instruction: 'root',
    intelligence: { endpoints: [{ url: 'http://127.0.0.1:9/v1' }], model: 'm' },
    caveats: { net },
    net_credentials: [GITHUB, LOCAL],
  });
  return { tree, node, payload };
}

/** A child of that root asking for `net`, admitted by the chokepoint and minted. */
function child(parentNet: string[] | 'all', net: string[]) {
  const { tree, node, payload } = root(parentNet);
  const decision = admitSpawn(
    { node, payload, liveChildren: 0 },
    { instruction: 'Do a part.', caveats: { net } },
    {
      tree,
      limits: { maxDepth: 3, maxBreadth: 8, maxTotal: 64 },
      rate: new SpawnRate(8, 2_000, 0),
      cwd: '/work',
      now: 0,
    },
  );
  if (!decision.ok) throw new Error(decision.reason);
  return mintPayload('r', tree.mintChild(node.id, 'Do a part.', 0), decision.payload);
}

describe('mintPayload and http.fetch credentials', () => {
  it('gives a root the credentials of every host its net allows', () => {
    expect(root('all').payload.net_credentials).toEqual([GITHUB, LOCAL]);
    expect(root(['api.github.com', '127.0.0.1:8080']).payload.net_credentials).toEqual([
      GITHUB,
      LOCAL,
    ]);
  });

  it('gives a child whose narrowed net leaves a host out no credential for it', () => {
    const payload = child(['api.github.com', '127.0.0.1'], ['127.0.0.1:8080']);
    expect(payload.caveats.net).toEqual(['127.0.0.1:8080']);
    expect(payload.net_credentials).toEqual([LOCAL]);
    expect(JSON.stringify(payload)).not.toContain(TOKEN);
  });

  it('gives a child with none of the hosts no field at all', () => {
    const payload = child('all', ['example.com']);
    expect(payload.net_credentials).toBeUndefined();
    expect(JSON.stringify(payload)).not.toContain(TOKEN);
  });

  it('drops a credential whose port the narrowed net leaves out; keeps one for any port', () => {
    // 127.0.0.1 on port 9000 only: the credential of port 8080 would never be sent.
    expect(child('all', ['127.0.0.1:9000']).net_credentials).toBeUndefined();
    // A credential for any port of its host is kept while the host is reachable on some port.
    expect(child('all', ['api.github.com:8443']).net_credentials).toEqual([GITHUB]);
  });

  it('keeps a credential under a wildcard that covers its host', () => {
    expect(child('all', ['*.github.com']).net_credentials).toEqual([GITHUB]);
  });
});

describe('a payload’s credentials as secrets', () => {
  const payload = SpawnPayloadSchema.parse({
    instruction: 'x',
    intelligence: { endpoints: [{ url: 'http://127.0.0.1:9/v1' }], model: 'm' },
    telemetry: { run_id: 'r', node_id: 'n0', node_path: '0' },
    net_credentials: [GITHUB],
  });

  it('are redacted from every stored copy, host and header kept', () => {
    expect(redactPayload(payload).net_credentials).toEqual([{ ...GITHUB, value: REDACTED }]);
  });

  it('are scrubbed, with and without the scheme word', () => {
    expect(payloadSecrets(payload)).toEqual(expect.arrayContaining([GITHUB.value, TOKEN]));
  });
});
