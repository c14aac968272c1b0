import { PassThrough, Writable } from 'node:stream';
import { createModelClient } from '../intel/index.js';
import { PROTOCOL_VERSION } from '../protocol/index.js';
import { openChild } from './run-child.js';
import { spawnSample } from './warm-up.js';

/**
 * Runs a child's whole path to `ready` once, in memory, on the warm-up's made-up payload: the
 * control channel reads a `spawn` frame from a stream of its own, connects a model client (which
 * dials nothing until it is called), builds and guards the tools, and says `ready` to a sink.
 * Nothing reaches the process's stdin, stdout or stderr, and nothing outlives it.
 *
 * A child started from the snapshot holds the warm-up's objects but has run none of this code,
 * so the first time each function runs, V8 compiles it: spread over the path, about a millisecond
 * on a small machine. A child waiting in a pool has time to spare, so it pays that before it is
 * taken; a cold child would only add the rehearsal to its start. Never throws: a rehearsal that
 * fails only loses the head start. Returns whether it reached `ready`.
 */
export async function rehearseSpawn(cwd: string = process.cwd()): Promise<boolean> {
  const input = new PassThrough();
  const sink = new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
  input.end(`${JSON.stringify(spawnSample())}\n`);
  try {
    const opened = await openChild(
      { stdin: input, stdout: sink, stderr: sink },
      { connectModel: (config, options) => createModelClient(config, options), cwd },
    );
    if (typeof opened === 'number') return false;
    const { writer, log } = opened.context;
    writer.send({ type: 'ready', protocol: PROTOCOL_VERSION });
    log.log('info', 'child.ready', { role: 'agent', warm: false, depth: 0 });
    await opened.tools.close();
    return true;
  } catch {
    return false;
  } finally {
    sink.destroy();
  }
}
