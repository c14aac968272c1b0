import { renderPlan, validatePlan } from '../plan/index.js';
import { EXIT } from '../runtime/index.js';
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
  const findings = validatePlan(plan);
  if (findings.length > 0) {
    // Outside pointers are fine in a slice of a larger plan: say how to check one.
    const onlyOutside = findings.every(
      (f) => f.code === 'unknown_dep' || f.code === 'unknown_parent',
    );
    const flag = onlyOutside ? '[--fragment] ' : '';
    const n = findings.length;
    await write(
      io.stderr,
      `${file}: ${n} problem${n === 1 ? '' : 's'}; run \`arbor plan validate ${flag}${file}\` for details\n`,
    );
  }
  return EXIT.ok;
}
