import { setTimeout as wait } from 'node:timers/promises';
import { callSignal } from './on-abort.js';

/**
 * Waits `ms` milliseconds, or until `signal` aborts; either way it resolves, and the caller looks
 * at the signal to tell which. The signal is listened to through `onAbort`, so the many waits of
 * one node on its stop signal add one listener to it. `ref: false` lets the process exit while it
 * waits.
 */
export async function sleep(
  ms: number,
  options: { signal?: AbortSignal; ref?: boolean } = {},
): Promise<void> {
  const { signal, ref = true } = options;
  if (signal === undefined) return wait(ms, undefined, { ref });
  if (signal.aborted) return;
  const call = callSignal(signal);
  try {
    await wait(ms, undefined, { ref, signal: call.signal });
  } catch (error) {
    if (!call.signal.aborted) throw error;
  } finally {
    call.release();
  }
}
