import type { Readable, Writable } from 'node:stream';
import { NdjsonReader, type DecodeResult } from '../../protocol/index.js';
import { decodeEgressCommand, type EgressCommand, type EgressReport } from './egress-control.js';
import { EgressProxy } from './egress-proxy.js';

/** Longest control line, in bytes. */
const MAX_CONTROL_LINE_BYTES = 1024 * 1024;

/**
 * The proxy process's control channel: commands read from `input` (one JSON object a line) are
 * carried out in order, each answered on `output`, where `refused` and `traffic` lines go too. A
 * line that is not a command is answered with an `error` line saying what was wrong. When
 * `input` ends, every node is closed and this resolves.
 */
export async function serveEgressControl(input: Readable, output: Writable): Promise<void> {
  const write = (line: EgressReport): void => {
    output.write(`${JSON.stringify(line)}\n`);
  };
  const proxy = new EgressProxy({ onReport: write });
  const reader = new NdjsonReader(decodeEgressCommand, { maxLineBytes: MAX_CONTROL_LINE_BYTES });
  try {
    for await (const chunk of input) {
      for (const result of reader.push(chunk as Buffer)) write(await carryOut(proxy, result));
    }
    for (const result of reader.end()) write(await carryOut(proxy, result));
  } finally {
    await proxy.closeAll();
  }
}

async function carryOut(
  proxy: EgressProxy,
  result: DecodeResult<EgressCommand>,
): Promise<EgressReport> {
  if (!result.ok) {
    const { line, reason } = result.violation;
    return { type: 'error', message: `control line ${line}: ${reason}` };
  }
  const command = result.frame;
  switch (command.type) {
    case 'open':
      return proxy.open(command);
    case 'close':
      return proxy.close(command.node);
    default:
      return assertNever(command);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected control command ${JSON.stringify(value)}`);
}
