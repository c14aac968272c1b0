import type { IntelConfig } from '../protocol/index.js';
import { decodeLine, encodeFrame, PROTOCOL_VERSION } from '../protocol/index.js';

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
 * Does, once and on made-up input, the first-time work a child does on its real payload: the
 * frame schemas it decodes are compiled, the model client's code paths are compiled. A child
 * waiting in a pool pays for this before it is taken, so the real spawn → `ready` is short.
 */
export function warmUp(connect: (config: IntelConfig) => { close?(): void }): void {
  const samples = [
    {
      type: 'spawn',
      protocol: PROTOCOL_VERSION,
      payload: {
        instruction: 'warm up',
        intelligence: SAMPLE_INTEL,
        telemetry: { run_id: 'warm', node_id: 'n0', node_path: '0' },
      },
    },
    { type: 'ping', seq: 1 },
    { type: 'tool_result', id: 1, result: 'ok', is_error: false },
    { type: 'budget_grant', id: 1, ok: true },
    { type: 'inject', message: 'warm up' },
    { type: 'cancel', reason: 'warm up' },
  ];
  for (const sample of samples) decodeLine(JSON.stringify(sample), 1, 'down');
  encodeFrame({ type: 'pong', seq: 1 });
  connect(SAMPLE_INTEL).close?.();
}
