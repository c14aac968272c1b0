import { renderPlan, validatePlan } from '../plan/index.js';
import { EXIT } from './exit-codes.js';
import { write, type CliIo } from './output.js';
import { loadPlan, parsePlanArgs } from './plan-load.js';
import { usageError } from './usage-error.js';

export const PLAN_SHOW_HELP = `Usage: arbor plan show <plan.toml | plan.run.toml>

Draws a plan as plain text: the task tree by parent, each node with its status, kind and
instruction, then each leaf's dependencies with their statuses. On a run-log it shows where the
run stands. Status markers: ○ pending  … running  ✓ done  ✗ failed  ⊘ blocked  – cancelled.

A plan with problems is still drawn; a note on stderr points to \`arbor plan validate\`.
`;

export async function planShow(args: string[], io: CliIo): Promise<number> {
  const { file, values } = parsePlanArgs('plan show', args, {
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    await write(io.stdout, PLAN_SHOW_HELP);
    return EXIT.ok;
  }
  if (file === undefined) throw usageError('plan show: expected a plan file.');
  const plan = await loadPlan(file, io);
  if (plan === undefined) return EXIT.usage;
  await write(io.stdout, renderPlan(plan));
  const problems = validatePlan(plan).length;
  if (problems > 0) {
    await write(
      io.stderr,
      `${file}: ${problems} problem${problems === 1 ? '' : 's'}; run \`arbor plan validate ${file}\` for details\n`,
    );
  }
  return EXIT.ok;
}
