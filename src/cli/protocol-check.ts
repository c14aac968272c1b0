import {
  createFrameReader,
  describeViolation,
  type DecodeResult,
  type Frame,
} from '../protocol/index.js';
import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs, usageError } from './usage-error.js';

export const PROTOCOL_CHECK_HELP = `Usage: arbor protocol check [--direction up|down]

Reads NDJSON frames on stdin and prints one verdict per non-empty line, in order:
  ok <type>          the line is a valid protocol v1 frame
  error <reason>     it is not, and why
Frames of either direction are accepted unless --direction restricts them:
  up    agent frames (child -> supervisor)
  down  control frames (supervisor -> child)
Exits 0 when every line was ok, 1 otherwise.
`;

/** The exit code when any line was not a valid frame. */
const CHECK_FAILED = 1;

/** `arbor protocol check`: a conformance checker for anyone writing a child in another language. */
export async function protocolCheck(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('protocol check', args, {
    direction: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    await write(io.stdout, PROTOCOL_CHECK_HELP);
    return EXIT.ok;
  }
  const direction = values.direction ?? 'any';
  if (direction !== 'up' && direction !== 'down' && direction !== 'any') {
    throw usageError(`Expected \`--direction\` to be \`up\` or \`down\`, got \`${direction}\`.`);
  }
  const reader = createFrameReader(direction);
  let errors = 0;
  const report = async (results: DecodeResult<Frame>[]): Promise<void> => {
    let text = '';
    for (const result of results) {
      if (result.ok) {
        text += `ok ${result.frame.type}\n`;
      } else {
        errors += 1;
        text += `error ${describeViolation(result.violation)}\n`;
      }
    }
    await write(io.stdout, text);
  };
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
    await report(reader.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
  }
  await report(reader.end());
  return errors === 0 ? EXIT.ok : CHECK_FAILED;
}
