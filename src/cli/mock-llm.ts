import {
  loadPlaybook,
  startFakeLlm,
  writeFileAtomic,
  type RecordedRequest,
} from '../testing/index.js';
import { ArborError } from '../protocol/index.js';
import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs, usageError } from './usage-error.js';

const MOCK_LLM_HELP = `Usage: arbor mock-llm --playbook FILE [--port N] [--addr-file FILE]

Runs a scripted LLM server on 127.0.0.1 that speaks OpenAI chat completions
(POST /v1/chat/completions), Anthropic messages (POST /v1/messages) and the
OpenAI Responses API (POST /v1/responses), streamed or not, answering from a
JSON playbook. See docs/testing.md.

Options:
  --playbook FILE    the playbook to answer from (required)
  --port N           port to listen on (default: a free one)
  --addr-file FILE   also write the address (http://127.0.0.1:PORT) to FILE, atomically

Prints one line on stdout once listening:
  arbor mock-llm listening on http://127.0.0.1:PORT
and one line per request on stderr. Stops on SIGINT or SIGTERM (exit 0).
`;

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(port) || port > 65_535) {
    throw usageError(`Expected \`--port\` to be an integer from 0 to 65535, got \`${text}\`.`);
  }
  return port;
}

function describe(record: RecordedRequest): string {
  const where =
    record.script === null
      ? ''
      : ` script ${record.script.name === null ? `#${record.script.index}` : JSON.stringify(record.script.name)} step ${record.step ?? '-'}`;
  const what = record.fault ?? (record.status === null ? 'pending' : String(record.status));
  const why = record.error === null ? '' : `: ${record.error}`;
  return `arbor mock-llm: ${record.method} ${record.path} ->${where} ${what}${why}\n`;
}

/** A promise that resolves on the first SIGINT or SIGTERM, and a way to stop listening. */
function stopSignals(): { stopped: Promise<void>; dispose: () => void } {
  let dispose = (): void => undefined;
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      dispose();
      resolve();
    };
    dispose = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { stopped, dispose };
}

/** `arbor mock-llm`: the fake LLM server, standalone, for demos and end-to-end tests. */
export async function mockLlm(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('mock-llm', args, {
    playbook: { type: 'string' },
    port: { type: 'string' },
    'addr-file': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    await write(io.stdout, MOCK_LLM_HELP);
    return EXIT.ok;
  }
  if (values.playbook === undefined) throw usageError('mock-llm: `--playbook FILE` is required.');
  const port = parsePort(values.port);
  const playbook = await loadPlaybook(values.playbook);
  // Listen for the stop signals before announcing, so a signal sent on the announcement is not lost.
  const { stopped, dispose } = stopSignals();
  let server;
  try {
    server = await startFakeLlm({
      playbook,
      port,
      onRequest: (record) => {
        io.stderr.write(describe(record));
      },
    });
  } catch (error) {
    dispose();
    throw error;
  }
  try {
    const addrFile = values['addr-file'];
    if (addrFile !== undefined) {
      await writeFileAtomic(addrFile, server.origin).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        throw new ArborError(
          'config',
          `Cannot write the address file \`${addrFile}\`: ${String(code ?? error)}.`,
          { cause: error },
        );
      });
    }
    await write(io.stdout, `arbor mock-llm listening on ${server.origin}\n`);
    await stopped;
  } finally {
    dispose();
    await server.close();
  }
  return EXIT.ok;
}
