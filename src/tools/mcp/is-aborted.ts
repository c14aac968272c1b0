/**
 * Has the signal aborted? Read through a call on purpose: TypeScript narrows `signal.aborted` to
 * `false` after one check and would drop a second check made after an `await`, when it may have
 * changed.
 */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
