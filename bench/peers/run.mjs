import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * Times one peer framework on the delegation benchmark and prints the times as one JSON object
 * on stdout. Started by `bench/delegation.ts` as a separate process, so arbor never imports
 * these packages; the fake LLM it talks to runs in that process.
 *
 *   node run.mjs --framework openai-agents|langgraph --url http://127.0.0.1:PORT/v1 \
 *     --n 20 --reps 20 --warmup 3 --calls 100 --delegate TEXT --noop TEXT --system TEXT --task TEXT
 *
 * `--delegate` and `--noop` are the two roots' instructions; delegating and no-op runs alternate
 * (ABBA), so both see the same state of the machine. Then `--calls` single model calls (system
 * prompt `--system`, user message `--task`) are made directly with the framework's model client.
 */
const FRAMEWORKS = {
  'openai-agents': {
    load: () => import('./openai-agents.mjs').then((m) => m.openAiAgentsScenario),
    packages: ['@openai/agents', 'openai', 'zod'],
  },
  langgraph: {
    load: () => import('./langgraph.mjs').then((m) => m.langGraphScenario),
    packages: ['@langchain/langgraph', '@langchain/core', '@langchain/openai', 'openai', 'zod'],
  },
};
const TEXT = ['url', 'delegate', 'noop', 'system', 'task'];
const COUNTS = ['n', 'reps', 'warmup', 'calls'];

const { values } = parseArgs({
  options: Object.fromEntries(
    ['framework', ...TEXT, ...COUNTS].map((name) => [name, { type: 'string' }]),
  ),
  strict: true,
});
const framework = FRAMEWORKS[values.framework ?? ''];
if (framework === undefined)
  fail(`--framework must be one of ${Object.keys(FRAMEWORKS).join(', ')}`);
for (const name of TEXT) if (values[name] === undefined) fail(`--${name} is required`);
const [n, reps, warmup, calls] = COUNTS.map(count);

const scenario = (await framework.load())({ url: values.url, n });
const run = {
  delegate: () => scenario.delegate(values.delegate),
  noop: () => scenario.noop(values.noop),
};
for (let i = 0; i < warmup; i++) {
  await run.delegate();
  await run.noop();
}
const times = { delegate: [], noop: [], direct: [] };
for (let i = 0; i < reps; i++) {
  const order = i % 2 === 0 ? ['delegate', 'noop'] : ['noop', 'delegate'];
  for (const shape of order) times[shape].push(await timed(run[shape]));
}
const direct = () => scenario.direct(values.system, values.task);
for (let i = 0; i < warmup * 10; i++) await direct();
for (let i = 0; i < calls; i++) times.direct.push(await timed(direct));

const versions = Object.fromEntries(framework.packages.map((name) => [name, versionOf(name)]));
process.stdout.write(`${JSON.stringify({ framework: values.framework, versions, ...times })}\n`);

async function timed(fn) {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function versionOf(name) {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

function count(name) {
  const value = Number(values[name]);
  if (values[name] === undefined || !Number.isSafeInteger(value) || value < 0)
    fail(`--${name} must be a non-negative integer, got ${values[name]}`);
  return value;
}

function fail(message) {
  process.stderr.write(`bench/peers/run.mjs: ${message}\n`);
  process.exit(2);
}
