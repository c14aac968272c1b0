import { PHASES, type Phase } from './delegation-phases.js';
import { median, percentile } from './stats.js';

/** One framework's times in milliseconds: `delegate[i]` and `noop[i]` ran back to back. */
export interface Series {
  label: string;
  isArbor: boolean;
  versions?: string;
  delegate: number[];
  noop: number[];
  /** Single model calls made directly with the framework's own model client. */
  direct: number[];
  phases?: Record<Phase, number>;
}

function round(ms: number): number {
  return Number(ms.toFixed(Math.abs(ms) < 10 ? 2 : 1));
}

/**
 * Overhead per delegation of each pair, in milliseconds: (delegating − no-op) / N, less the
 * median direct model call (the call each sub-agent makes, which the no-op run does not).
 */
export function overheads(series: Series, n: number): number[] {
  const call = median(series.direct);
  return series.delegate.map((ms, i) => (ms - series.noop[i]!) / n - call);
}

/**
 * The metrics table: per framework the run times, the direct call and the overhead per
 * delegation (median and p95 over the pairs), then each arbor variant's median overhead divided
 * by each peer's.
 */
export function delegationMetrics(
  all: readonly Series[],
  n: number,
): Record<string, number | string> {
  const metrics: Record<string, number | string> = {};
  for (const series of all) {
    const over = overheads(series, n);
    const key = (what: string): string => `${series.label}: ${what}`;
    if (series.versions !== undefined) metrics[key('versions')] = series.versions;
    metrics[key('delegating run p50 ms')] = round(median(series.delegate));
    metrics[key('no-op run p50 ms')] = round(median(series.noop));
    metrics[key('direct model call p50 ms')] = round(median(series.direct));
    metrics[key('overhead per delegation p50 ms')] = round(median(over));
    metrics[key('overhead per delegation p95 ms')] = round(percentile(over, 95));
    if (series.phases !== undefined) {
      const phases = series.phases;
      metrics[key(`phases p50 ms (${PHASES.join(' / ')})`)] = PHASES.map((p) => phases[p]).join(
        ' / ',
      );
    }
  }
  const peers = all.filter((s) => !s.isArbor);
  for (const arbor of all.filter((s) => s.isArbor)) {
    for (const peer of peers) {
      const ratio = median(overheads(arbor, n)) / median(overheads(peer, n));
      metrics[`ratio ${arbor.label} / ${peer.label} (p50 overhead)`] = Number(
        ratio.toFixed(ratio < 10 ? 1 : 0),
      );
    }
  }
  return metrics;
}
