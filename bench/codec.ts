import { createFrameReader, encodeFrame, type AgentFrame } from '../src/protocol/index.js';
import { median, type BenchResult } from './stats.js';

/**
 * Decode + validate throughput of the NDJSON reader over a realistic mix of agent frames, read in
 * 64 KiB chunks as they come off a pipe. Compared with `JSON.parse` alone on the same lines, which
 * is the floor any NDJSON reader pays.
 */

const FRAMES = 200_000;
const CHUNK = 64 * 1024;
const RUNS = 7;

function sampleFrame(i: number): AgentFrame {
  const pick = i % 100;
  if (pick < 40) {
    return {
      type: 'event',
      event: 'loop.step',
      fields: { step: i, tool: 'fs.read', path: `src/file-${i % 37}.ts`, ms: 12, ok: true },
    };
  }
  if (pick < 65)
    return {
      type: 'usage',
      input_tokens: 1200 + (i % 500),
      output_tokens: 80 + (i % 40),
      cost_usd: 0.00042,
    };
  if (pick < 80) return { type: 'pong', seq: i };
  if (pick < 88) {
    return {
      type: 'tool_request',
      id: i + 1,
      name: 'memory.get',
      args: { key: `notes/${i % 11}`, default: null },
    };
  }
  if (pick < 93) return { type: 'budget_request', id: i + 1, estimate: 4096 };
  if (pick < 97) {
    return {
      type: 'turn',
      outcome: {
        status: 'completed',
        partial: false,
        result: `Handled item ${i}: the flaky test was quarantined and an issue filed.`,
        scheduled: [],
        subscriptions: [],
      },
    };
  }
  if (pick < 99) {
    return {
      type: 'result',
      outcome: {
        status: 'completed',
        partial: false,
        result: { summary: 'done', items: [1, 2, 3] },
        scheduled: [],
        subscriptions: [],
      },
    };
  }
  return { type: 'intel_health', all_down: false, active: { index: 0, transport: 'https' } };
}

export function benchCodec(): BenchResult {
  const text = Array.from({ length: FRAMES }, (_, i) => encodeFrame(sampleFrame(i))).join('');
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(bytes.subarray(at, at + CHUNK));

  const decodeRuns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const reader = createFrameReader('up');
    let ok = 0;
    const start = process.hrtime.bigint();
    for (const chunk of chunks) for (const result of reader.push(chunk)) if (result.ok) ok += 1;
    for (const result of reader.end()) if (result.ok) ok += 1;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (ok !== FRAMES) throw new Error(`decoded ${ok} of ${FRAMES} frames`);
    decodeRuns.push(seconds);
  }

  const lines = text.split('\n').filter((line) => line !== '');
  const parseRuns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint();
    let sink = 0;
    for (const line of lines) sink += (JSON.parse(line) as { type: string }).type.length;
    parseRuns.push(Number(process.hrtime.bigint() - start) / 1e9);
    if (sink === 0) throw new Error('unreachable');
  }

  const seconds = median(decodeRuns);
  const parseSeconds = median(parseRuns);
  const megabytes = bytes.length / (1024 * 1024);
  return {
    name: 'codec',
    metrics: {
      frames: FRAMES,
      'mean frame bytes': Math.round(bytes.length / FRAMES),
      'decode+validate frames/s': Math.round(FRAMES / seconds),
      'decode+validate MiB/s': Number((megabytes / seconds).toFixed(1)),
      'JSON.parse alone frames/s': Math.round(FRAMES / parseSeconds),
      'overhead over JSON.parse': Number((seconds / parseSeconds).toFixed(2)),
    },
  };
}
