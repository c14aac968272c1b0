import type { InspectedRequest } from './inspect-request.js';
import type { Fault, Match, Playbook, Script, Step } from './playbook.js';

/** What the playbook says to do with one request. */
export type Selection =
  | {
      ok: true;
      scriptIndex: number;
      script: Script;
      stepIndex: number;
      step: Step;
      fault: Fault | undefined;
    }
  | { ok: false; scriptIndex: number | undefined; reason: string };

function matches(match: Match | undefined, request: InspectedRequest): boolean {
  if (match === undefined) return true;
  if (match.model !== undefined && match.model !== request.model) return false;
  if (match.dialect !== undefined && match.dialect !== request.dialect) return false;
  const { contains } = match;
  return contains === undefined || request.texts.some((text) => text.includes(contains));
}

/**
 * Picks the script, the step and the fault for a request. `landings` counts requests per
 * script and step, so a `faults` list is used up one request at a time; it is updated here.
 */
export function selectStep(
  playbook: Playbook,
  request: InspectedRequest,
  landings: Map<string, number>,
): Selection {
  const scriptIndex = playbook.scripts.findIndex((script) => matches(script.match, request));
  const script = playbook.scripts[scriptIndex];
  if (script === undefined) {
    return {
      ok: false,
      scriptIndex: undefined,
      reason: `no script matched this request (dialect ${request.dialect}, model \`${request.model}\`, ${request.toolResults} tool results)`,
    };
  }
  const last = script.steps.length - 1;
  if (request.toolResults > last && script.after_last === 'error') {
    const label = script.name === undefined ? `#${scriptIndex}` : `\`${script.name}\``;
    return {
      ok: false,
      scriptIndex,
      reason: `script ${label} has ${script.steps.length} steps and \`after_last\` is \`error\`; the request holds ${request.toolResults} tool results`,
    };
  }
  const stepIndex = Math.min(request.toolResults, last);
  const step = script.steps[stepIndex];
  // Unreachable: `stepIndex` is clamped to the last step and `steps` is never empty.
  if (step === undefined)
    return { ok: false, scriptIndex, reason: `script #${scriptIndex} has no steps` };
  const key = `${scriptIndex}:${stepIndex}`;
  const landed = landings.get(key) ?? 0;
  landings.set(key, landed + 1);
  const fault = step.fault ?? step.faults?.[landed];
  return { ok: true, scriptIndex, script, stepIndex, step, fault };
}
