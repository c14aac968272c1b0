/**
 * One `abort` listener per signal, shared by every wait on it. A node's stop signal is waited on
 * by each call it has in flight (a fan-out of twelve sub-agents is twelve waits), and an
 * `AbortSignal` warns past ten listeners (`MaxListenersExceededWarning`) — on stderr, which may be
 * the NDJSON event stream. Each wait subscribes here instead; the shared listener is removed as
 * soon as the last wait has unsubscribed, so nothing outlives the calls.
 */
interface Fanout {
  readonly listeners: Set<() => void>;
  readonly dispatch: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `listener` once when `signal` aborts (never, if it already has, like `addEventListener`).
 * Returns the unsubscribe function; call it when the wait settles.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) return () => undefined;
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const listeners = new Set<() => void>();
    const dispatch = (): void => {
      fanouts.delete(signal);
      for (const each of [...listeners]) each();
      listeners.clear();
    };
    fanout = { listeners, dispatch };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  const { listeners, dispatch } = fanout;
  // A listener subscribed twice gets its own entry each time.
  const entry = (): void => {
    listeners.delete(entry);
    listener();
  };
  listeners.add(entry);
  return () => {
    if (!listeners.delete(entry) || listeners.size > 0) return;
    signal.removeEventListener('abort', dispatch);
    fanouts.delete(signal);
  };
}

/**
 * A signal of its own for one call, aborted (with the same reason) when `parent` is. Hand it to a
 * tool that adds listeners of its own, and `release` it when the call ends.
 */
export function callSignal(parent: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const release = onAbort(parent, () => {
    controller.abort(parent.reason);
  });
  return { signal: controller.signal, release };
}
