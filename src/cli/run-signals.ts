import type { IntelConfig, SwapPolicy } from '../protocol/index.js';
import type { Supervisor } from '../supervisor/index.js';

export interface RunSignals {
  /** Whether SIGINT or SIGTERM asked the run to stop. */
  readonly interrupted: boolean;
  dispose(): void;
}

/**
 * Signals during a run: SIGINT/SIGTERM drain the tree through the kill ladder and a second one
 * forces SIGKILL; SIGUSR1 pauses every agent at its next step and SIGUSR2 resumes; SIGHUP reloads
 * the config and hot-swaps the intelligence of every live agent.
 */
export function installRunSignals(
  supervisor: Supervisor,
  options: {
    reload(): IntelConfig | undefined;
    swapPolicy: SwapPolicy;
    onReloadError?: (message: string) => void;
    /** Called on every SIGINT/SIGTERM, after the drain has begun (a plan stops scheduling). */
    onInterrupt?: () => void;
  },
): RunSignals {
  let interrupts = 0;
  const onStop = (): void => {
    interrupts += 1;
    void supervisor.stopAll(interrupts === 1 ? 'interrupted' : 'interrupted again', {
      force: interrupts > 1,
    });
    options.onInterrupt?.();
  };
  const onPause = (): void => {
    supervisor.broadcast({ type: 'pause' });
  };
  const onResume = (): void => {
    supervisor.broadcast({ type: 'resume' });
  };
  const onReload = (): void => {
    try {
      const intelligence = options.reload();
      if (intelligence !== undefined) supervisor.swapIntel(intelligence, options.swapPolicy);
    } catch (error) {
      // A bad config on reload keeps the running intelligence: the children are not touched.
      options.onReloadError?.(error instanceof Error ? error.message : String(error));
    }
  };
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  process.on('SIGUSR1', onPause);
  process.on('SIGUSR2', onResume);
  process.on('SIGHUP', onReload);
  return {
    get interrupted() {
      return interrupts > 0;
    },
    dispose: () => {
      process.off('SIGINT', onStop);
      process.off('SIGTERM', onStop);
      process.off('SIGUSR1', onPause);
      process.off('SIGUSR2', onResume);
      process.off('SIGHUP', onReload);
    },
  };
}
