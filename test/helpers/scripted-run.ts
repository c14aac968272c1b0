import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fakeLlm, steps } from './fake-llm.js';
import { FAST_ENV } from './arbor-process.js';
import { runArbor, type ArborRun } from './run-arbor.js';

/** The API key every scripted run is started with: it must never reach a model request. */
export const RUN_KEY = 'sk-arbor-e2e-key-0123456789abcdef';

/** A request body in the OpenAI dialect, as the fake LLM recorded it. */
export interface ChatBody {
  messages: { role: string; content: string | null }[];
  tools?: { function: { name: string } }[];
}

export interface ScriptedRun extends ArborRun {
  /** Every request the model was sent, in order. */
  bodies: ChatBody[];
  /** The tool results of the last request, in order, without the dialect's `Error: ` prefix. */
  results: string[];
  /** NDJSON events arbor wrote on stderr. */
  events: Record<string, unknown>[];
}

/**
 * A script of model rounds as the fake LLM plays it: its step `n` answers a conversation holding
 * `n` tool results, so a round that makes `k` calls is followed by `k − 1` steps nobody reaches.
 */
export function rounds(...list: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const round of list) {
    out.push(round);
    const calls = Array.isArray(round.tool_calls) ? round.tool_calls.length : 0;
    for (let i = 1; i < calls; i += 1) out.push({ text: 'never reached' });
  }
  return out;
}

/**
 * Runs `arbor run` in `cwd` against a fake model that answers with `script`: one round per model
 * call, in order (see `rounds`).
 */
export async function scriptedRun(options: {
  cwd: string;
  script: Record<string, unknown>[];
  args?: string[];
  env?: NodeJS.ProcessEnv;
  instruction?: string;
  input?: string;
  /** Descriptors arbor inherits (see `RunOptions.fds`). */
  fds?: Readonly<Record<number, number>>;
}): Promise<ScriptedRun> {
  const server = await fakeLlm(steps(...rounds(...options.script)));
  const run = await runArbor(
    [
      'run',
      '--intel',
      server.url,
      '--model',
      'm',
      ...(options.args ?? []),
      options.instruction ?? 'Do the task.',
    ],
    {
      cwd: options.cwd,
      env: {
        ...FAST_ENV,
        ARBOR_DB: '',
        ARBOR_API_KEY: RUN_KEY,
        OPENAI_API_KEY: RUN_KEY,
        ...options.env,
      },
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.fds === undefined ? {} : { fds: options.fds }),
    },
  );
  const bodies = server.requests.map((r) => r.body as ChatBody);
  const last = bodies.at(-1);
  const results = (last?.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => (m.content ?? '').replace(/^Error: /, ''));
  const events = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  return { ...run, bodies, results, events };
}

/** A workspace (the run's working directory) and a directory beside it the grant leaves out. */
export async function workspace(files: Record<string, string> = {}): Promise<{
  base: string;
  ws: string;
  outside: string;
}> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'arbor-escape-')));
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'TOP-SECRET-OUTSIDE\n');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, name)), { recursive: true });
    await writeFile(path.join(ws, name), text);
  }
  return { base, ws, outside };
}
