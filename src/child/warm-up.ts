import type { IntelConfig } from '../protocol/index.js';
import {
  createFrameReader,
  encodeFrame,
  PROTOCOL_VERSION,
  SpawnPayloadSchema,
} from '../protocol/index.js';
import { builtinTools } from '../tools/builtin/index.js';
import { internalToolDefs } from '../tools/internal-catalog.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { topCaveats, Trajectory } from '../authority/index.js';
import { SensitiveMatcher } from '../authority/sensitive-paths.js';
import { detectInjection, wrapUntrusted } from '../tools/content/index.js';
import { GuardedTools } from '../tools/guarded-tools.js';

const SAMPLE_INTEL: IntelConfig = {
  endpoints: [{ url: 'http://127.0.0.1:1/v1', dialect: 'openai', headers: {} }],
  model: 'warm-up',
  sampling: {},
  timeout_ms: 1_000,
  retries: 0,
  breaker: { threshold: 3, cooldown_ms: 5_000, cooldown_max_ms: 60_000 },
  prices: {},
};

/**
 * Read once in a child's life: decoded once, so its schema is never compiled. The supervisor
 * sends a payload with every default filled in, so the sample has them too: a sample without them
 * leaves cold the code that checks each field present.
 */
export function spawnSample(): unknown {
  return {
    type: 'spawn',
    protocol: PROTOCOL_VERSION,
    payload: SpawnPayloadSchema.parse({
      instruction: 'warm up',
      intelligence: SAMPLE_INTEL,
      telemetry: { run_id: 'warm', node_id: 'n0', node_path: '0' },
    }),
  };
}

/** Read many times: decoded twice, so the decoder compiles their schemas now. */
const REPEATED_SAMPLES = [
  { type: 'ping', seq: 1 },
  { type: 'tool_result', id: 1, result: 'ok', is_error: false },
  { type: 'budget_grant', id: 1, ok: true },
  { type: 'inject', message: 'warm up' },
];

/**
 * Does, once and on made-up input, the first-time work a child does on its real payload: zod's
 * first parse of a spawn payload, the compiled schemas of the frames it reads often, the JSON
 * Schemas of the tools it offers, the model client's code paths. A child waiting in a pool pays
 * for this before it is taken, so the real spawn → `ready` is short; a cold child would do the same
 * work on its payload anyway.
 */
export function warmUp(connect: (config: IntelConfig) => { close?(): void }): void {
  // Through a reader, as frames arrive, so the reader's own first run is paid here too.
  const reader = createFrameReader('down');
  reader.push(Buffer.from(`${JSON.stringify(spawnSample())}\n`));
  for (const sample of REPEATED_SAMPLES) {
    const line = `${JSON.stringify(sample)}\n`;
    reader.push(Buffer.from(line + line));
  }
  encodeFrame({ type: 'pong', seq: 1 });
  const builtin = builtinTools({
    caveats: topCaveats(),
    cwd: process.cwd(),
    sandbox: { mode: 'bwrap' },
    protect: [],
  });
  const registry = new ToolRegistry({ sources: [builtin] });
  registry.definitions();
  warmGuard(registry);
  internalToolDefs();
  connect(SAMPLE_INTEL).close?.();
}

/** The runtime guard's first-time work: its construction, a profile, the detector, the boundary. */
function warmGuard(registry: ToolRegistry): void {
  const guard = new GuardedTools({
    host: registry,
    profile: (name) => ({ untrusted: false, egress: false, sensitive: false, source: name }),
    trajectory: new Trajectory({ risk: 0 }),
    trifecta: { mode: 'ask', sensitive_paths: [], risk_ask_at: 0.8 },
    isolation: {
      enabled: true,
      spotlight: true,
      max_content_bytes: 65_536,
      marker: 'warmupwarmupwarmup',
      untrusted_tools: [],
    },
    sensitive: new SensitiveMatcher(),
    approve: () => Promise.resolve({ approved: false, reason: 'warm-up' }),
    onEvent: () => undefined,
  });
  guard.definitions();
  wrapUntrusted('warm up', {
    marker: 'warmupwarmupwarmup',
    provenance: 'warm-up',
    flagged: detectInjection('warm up'),
    maxBytes: 64,
  });
}
