import { ArborError } from '../protocol/index.js';
import { DEFAULT_DB_PATH, withStore } from '../store/index.js';
import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { chosen, gateChoices, showChoices } from './terminal-responder.js';
import { parseCommandArgs, usageError } from './usage-error.js';

const GATE_HELP = `Usage: arbor gate list [--run ID] [--db PATH]
       arbor gate answer <run-id> <gate-id> <answer> [--db PATH]

Questions that agents asked a person (ask_human, or a policy rule that says ask). A run started
with --ask-fallback wait holds each question open until it is answered here, from any shell.
\`gate list\` shows a question's choices numbered; answering with a choice's number stores that
choice (a gate without choices, or a choice that is itself a number, stores the answer as typed).
`;

/** `arbor gate list|answer`: see and answer the questions agents are waiting on. */
export async function gateCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') return list(rest, io);
  if (sub === 'answer') return answer(rest, io);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    await write(io.stdout, GATE_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  throw usageError(
    `Unknown subcommand \`gate ${sub}\`; expected \`gate list\` or \`gate answer\`.`,
  );
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('gate list', args, {
    run: { type: 'string' },
    db: { type: 'string' },
    all: { type: 'boolean' },
  });
  return withStore(values.db ?? io.env.ARBOR_DB ?? DEFAULT_DB_PATH, async (store) => {
    const gates = store.listGates({
      ...(values.run === undefined ? {} : { runId: values.run }),
      ...(values.all === true ? {} : { status: 'open' }),
    });
    let text = '';
    for (const gate of gates) {
      const choices = showChoices(gateChoices(gate.payload));
      text += `${gate.runId} ${gate.id} ${gate.status} node ${gate.nodeId ?? '-'}: ${gate.question}${choices}${gate.answer === undefined ? '' : ` → ${gate.answer}`}\n`;
    }
    await write(io.stdout, text);
    return EXIT.ok;
  });
}

async function answer(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'gate answer',
    args,
    { db: { type: 'string' } },
    true,
  );
  const [runId, gateId, ...words] = positionals;
  if (runId === undefined || gateId === undefined || words.length === 0) {
    throw usageError('Expected `arbor gate answer <run-id> <gate-id> <answer>`.');
  }
  return withStore(values.db ?? io.env.ARBOR_DB ?? DEFAULT_DB_PATH, async (store) => {
    const gate = store.getGate(runId, gateId);
    if (gate === undefined)
      throw new ArborError('usage', `No gate \`${gateId}\` in run \`${runId}\`.`);
    if (
      !store.closeGate(runId, gateId, {
        status: 'answered',
        // A choice's number, as `gate list` and the terminal show them, stands for the choice.
        answer: chosen(words.join(' '), gateChoices(gate.payload)),
        via: 'cli',
        closedAt: Date.now(),
      })
    ) {
      throw new ArborError(
        'usage',
        `Gate \`${gateId}\` of run \`${runId}\` is already ${gate.status}.`,
      );
    }
    await write(io.stdout, `answered ${runId} ${gateId}\n`);
    return EXIT.ok;
  });
}
