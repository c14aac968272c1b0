import { readFileSync } from 'node:fs';
import { detectInjection } from '../src/tools/content/index.js';
import { median, type BenchResult } from './stats.js';

/**
 * The injection detector over `bench/fixtures/injection-corpus.json`: prompt injections from
 * public write-ups (papers, disclosures, vendor posts; each sample names its source) and benign
 * texts of the kinds an agent reads (READMEs, logs, e-mails, code, news). Detection rate: the
 * share of injections flagged; false-positive rate: the share of benign texts flagged. Also how
 * long a scan takes. The missed samples are listed, so the numbers can be read honestly.
 */

interface Sample {
  id: string;
  label: 'injection' | 'benign';
  source: string;
  text: string;
  /** `tuning`: the rules were written against it; `held-out`: added after, measured once. */
  set: 'tuning' | 'held-out';
}

const CORPUS = new URL('../../bench/fixtures/injection-corpus.json', import.meta.url);
const RUNS = 50;

function rates(samples: readonly Sample[], prefix: string): Record<string, string> {
  const injections = samples.filter((s) => s.label === 'injection');
  const benign = samples.filter((s) => s.label === 'benign');
  const flagged = (s: Sample): boolean => detectInjection(s.text).length > 0;
  const missed = injections.filter((s) => !flagged(s)).map((s) => s.id);
  const falsePositives = benign
    .filter(flagged)
    .map((s) => `${s.id} (${detectInjection(s.text).join(', ')})`);
  const pct = (n: number, of: number): string => `${((100 * n) / of).toFixed(1)}% (${n}/${of})`;
  return {
    [`${prefix}: detection rate`]: pct(injections.length - missed.length, injections.length),
    [`${prefix}: false-positive rate`]: pct(falsePositives.length, benign.length),
    [`${prefix}: missed`]: missed.join(', ') || 'none',
    [`${prefix}: false positives`]: falsePositives.join('; ') || 'none',
  };
}

export function benchDetector(): BenchResult {
  const { samples } = JSON.parse(readFileSync(CORPUS, 'utf8')) as { samples: Sample[] };
  const rules = new Map<string, number>();
  for (const sample of samples.filter((s) => s.label === 'injection'))
    for (const rule of detectInjection(sample.text)) rules.set(rule, (rules.get(rule) ?? 0) + 1);
  const times: number[] = [];
  const bytes = samples.reduce((sum, s) => sum + Buffer.byteLength(s.text), 0);
  for (let run = 0; run < RUNS; run += 1) {
    const start = process.hrtime.bigint();
    for (const sample of samples) detectInjection(sample.text);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const ms = median(times);
  const count = (set: Sample['set'], label: Sample['label']): number =>
    samples.filter((s) => s.set === set && s.label === label).length;
  return {
    name: 'detector',
    metrics: {
      samples: `${samples.length}: tuning ${count('tuning', 'injection')} injections + ${count('tuning', 'benign')} benign; held-out ${count('held-out', 'injection')} + ${count('held-out', 'benign')}`,
      ...rates(samples, 'all'),
      ...rates(
        samples.filter((s) => s.set === 'held-out'),
        'held-out',
      ),
      ...rates(
        samples.filter((s) => s.set === 'tuning'),
        'tuning',
      ),
      'rules fired on injections': [...rules].map(([rule, n]) => `${rule} ${n}`).join(', '),
      'scan of the whole corpus, p50': `${ms.toFixed(2)} ms (${(((bytes / 1024 / ms) * 1000) / 1024).toFixed(1)} MiB/s)`,
    },
  };
}
