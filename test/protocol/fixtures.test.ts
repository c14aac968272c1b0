import { describe, expect, it } from 'vitest';
import {
  AgentFrameSchema,
  ControlFrameSchema,
  FRAME_TYPES,
  createFrameReader,
  decodeLine,
  encodeFrame,
} from '../../src/protocol/index.js';
import { invalidFixtures, validFixtures } from '../helpers/protocol-fixtures.js';

const valid = validFixtures();
const invalid = invalidFixtures();

describe('golden frames', () => {
  it('cover every frame type of both directions', () => {
    const covered = new Set(valid.map((fixture) => fixture.type));
    for (const type of [...FRAME_TYPES.down, ...FRAME_TYPES.up]) expect(covered).toContain(type);
    expect(FRAME_TYPES.down).toHaveLength(9);
    expect(FRAME_TYPES.up).toHaveLength(14);
  });

  it.each(valid.map((f) => [f.name, f] as const))(
    '%s decodes to its type and round-trips',
    (_, fixture) => {
      const text = fixture.bytes.toString('utf8').trimEnd();
      const direction = FRAME_TYPES.down.includes(fixture.type) ? 'down' : 'up';
      const decoded = decodeLine(text, 1, direction);
      if (!decoded.ok) throw new Error(decoded.violation.reason);
      expect(decoded.frame.type).toBe(fixture.type);

      const again = decodeLine(encodeFrame(decoded.frame).trimEnd(), 1, direction);
      expect(again).toEqual(decoded);
    },
  );

  it('parse older frames by filling every default', () => {
    const decoded = decodeLine(
      valid.find((f) => f.name === 'spawn-minimal')!.bytes.toString(),
      1,
      'down',
    );
    if (!decoded.ok || decoded.frame.type !== 'spawn')
      throw new Error('spawn-minimal did not decode');
    const { payload } = decoded.frame;
    expect(payload).toMatchObject({
      context_seed: [],
      mcp_servers: [],
      a2a_peers: [],
      gated_tools: [],
      depth: 0,
      warm: false,
      role: 'agent',
      limits: {
        max_steps: 50,
        max_depth: 0,
        loop_threshold: 4,
        stall_turns: 3,
        priority: 'normal',
      },
      caveats: { fs_read: 'all', fs_write: 'all', exec: 'all', net: 'all', max_calls: 'unlimited' },
      content_isolation: { enabled: true, spotlight: true, max_content_bytes: 65_536 },
      telemetry: { log_level: 'info', log_content: false },
    });
    expect(payload.intelligence).toMatchObject({
      timeout_ms: 120_000,
      retries: 2,
      breaker: { threshold: 3, cooldown_ms: 5_000, cooldown_max_ms: 60_000 },
      endpoints: [{ dialect: 'openai', headers: {} }],
    });
  });

  it('drop unknown fields rather than reject them, and never invent them on output', () => {
    const text = valid.find((f) => f.name === 'event-unknown-field-tolerated')!.bytes.toString();
    const decoded = decodeLine(text, 1, 'up');
    if (!decoded.ok) throw new Error(decoded.violation.reason);
    expect(encodeFrame(decoded.frame)).not.toContain('added_in_v2');
  });

  it('accept every direction-less frame through the "any" reader', () => {
    const reader = createFrameReader('any');
    const results = [...reader.push(Buffer.concat(valid.map((f) => f.bytes))), ...reader.end()];
    expect(results.map((r) => (r.ok ? r.frame.type : r.violation.reason))).toEqual(
      valid.map((f) => f.type),
    );
  });

  it('are the schemas exported for each direction', () => {
    expect(ControlFrameSchema.options).toHaveLength(FRAME_TYPES.down.length);
    expect(AgentFrameSchema.options).toHaveLength(FRAME_TYPES.up.length);
  });
});

describe('negative frames', () => {
  it.each(invalid.map((f) => [f.name, f] as const))(
    '%s is rejected with the right reason',
    (_, fixture) => {
      const reader = createFrameReader(fixture.direction ?? 'any');
      const results = [...reader.push(fixture.bytes), ...reader.end()];
      expect(results).toHaveLength(1);
      const [result] = results;
      if (result === undefined || result.ok) throw new Error(`${fixture.name} was accepted`);
      expect(result.violation.code).toBe(fixture.code);
      expect(result.violation.reason).toContain(fixture.reason);
      expect(result.violation.line).toBe(1);
    },
  );
});
