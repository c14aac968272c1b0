import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  SpawnPayloadSchema,
  decodeLine,
  redactFrame,
  redactPayload,
  redactUrl,
  type SpawnPayload,
} from '../../src/protocol/index.js';

const SECRETS = [
  'sk-live-SECRET-1',
  'anthropic-SECRET-2',
  'hunter2-SECRET-3',
  'ghp_SECRET4',
  'literal-enroll-SECRET-5',
  'q-SECRET-6',
  'cookie-SECRET-7',
];

function secretPayload(): SpawnPayload {
  return SpawnPayloadSchema.parse({
    instruction: 'Work.',
    intelligence: {
      endpoints: [
        {
          url: 'https://api.openai.com/v1',
          api_key: SECRETS[0],
          credential_ref: 'env:OPENAI_API_KEY',
        },
        {
          url: `https://user:${SECRETS[2]}@gw.example.com/v1?api_key=${SECRETS[5]}&region=eu`,
          dialect: 'anthropic',
          headers: { 'x-api-key': SECRETS[1]!, 'anthropic-version': '2023-06-01' },
        },
      ],
      model: 'm',
    },
    mcp_servers: [
      { name: 'gh', command: 'gh-mcp', env: { GITHUB_TOKEN: SECRETS[3]!, LOG: 'debug' } },
      {
        name: 'web',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer {{secret:WEB}}', Cookie: SECRETS[6]! },
      },
    ],
    a2a_peers: [
      {
        name: 'peer',
        url: 'https://a2a.example.com',
        headers: { 'X-Custom': `Bearer ${SECRETS[1]!}` },
      },
    ],
    aauth: { provider: 'https://aauth.example.com', key_file: '/k', enrollment_token: SECRETS[4] },
    telemetry: { run_id: 'r', node_id: 'n', node_path: '0' },
  });
}

describe('redactPayload', () => {
  it('leaves no secret anywhere in the stored copy', () => {
    const text = JSON.stringify(redactPayload(secretPayload()));
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('keeps what a restored node needs: references, names, non-secret headers', () => {
    const redacted = redactPayload(secretPayload());
    const [first, second] = redacted.intelligence.endpoints;
    expect(first).not.toHaveProperty('api_key');
    expect(first?.credential_ref).toBe('env:OPENAI_API_KEY');
    expect(second?.headers).toEqual({ 'x-api-key': REDACTED, 'anthropic-version': '2023-06-01' });
    expect(second?.url).toContain('region=eu');
    expect(redacted.mcp_servers[0]?.env).toEqual({ GITHUB_TOKEN: REDACTED, LOG: 'debug' });
    expect(redacted.mcp_servers[1]?.headers.Authorization).toBe('Bearer {{secret:WEB}}');
    expect(redacted.a2a_peers[0]?.headers['X-Custom']).toBe(REDACTED);
    expect(redacted.aauth?.enrollment_token).toBe(REDACTED);
  });

  it('keeps an enrollment token that is only a reference', () => {
    const original = {
      ...secretPayload(),
      aauth: {
        provider: 'https://a.example',
        key_file: '/k',
        enrollment_token: '{{secret:ENROLL}}',
      },
    };
    expect(redactPayload(original).aauth?.enrollment_token).toBe('{{secret:ENROLL}}');
  });

  it('does not touch the original', () => {
    const original = secretPayload();
    const before = JSON.stringify(original);
    redactPayload(original);
    expect(JSON.stringify(original)).toBe(before);
  });

  it('redacts spawn and swap_intel frames and passes others through', () => {
    const spawn = redactFrame({ type: 'spawn', protocol: 1, payload: secretPayload() });
    expect(JSON.stringify(spawn)).not.toContain(SECRETS[0]);
    const swap = redactFrame({
      type: 'swap_intel',
      intelligence: secretPayload().intelligence,
      policy: 'finish-on-old',
    });
    expect(JSON.stringify(swap)).not.toContain(SECRETS[0]);
    const ping = { type: 'ping' as const, seq: 1 };
    expect(redactFrame(ping)).toBe(ping);
  });

  it('leaves a frame that still decodes after redaction', () => {
    const redacted = redactFrame({ type: 'spawn', protocol: 1, payload: secretPayload() });
    expect(decodeLine(JSON.stringify(redacted), 1, 'down').ok).toBe(true);
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://u:p@h.example/x', 'https://u:%5Bredacted%5D@h.example/x'],
    ['https://h.example/x?token=abc&page=2', 'https://h.example/x?token=%5Bredacted%5D&page=2'],
    ['https://h.example/v1', 'https://h.example/v1'],
    ['not a url', 'not a url'],
  ])('%s → %s', (input, output) => {
    expect(redactUrl(input)).toBe(output);
  });
});
