import { randomBytes } from 'node:crypto';

/** A run id that sorts by start time: `run_` + milliseconds in base 36 + 8 random hex digits. */
export function mintRunId(now: number = Date.now()): string {
  return `run_${now.toString(36).padStart(9, '0')}${randomBytes(4).toString('hex')}`;
}
