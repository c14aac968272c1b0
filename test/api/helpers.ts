import { z } from 'zod';
import { afterEach } from 'vitest';
import { Arbor, defineTool, type ArborEvent, type ArborOptions } from '../../src/index.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import type { PlaybookInput } from '../../src/testing/index.js';

const opened: Arbor[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((arbor) => arbor.close()));
});

/** An `Arbor` on a fake LLM answering `playbook`, closed after the test. */
export async function openArbor(
  playbook: PlaybookInput,
  options: Omit<ArborOptions, 'intelligence'> = {},
) {
  const server = await fakeLlm(playbook);
  const arbor = await Arbor.open({
    intelligence: { endpoints: [server.url], model: 'scripted' },
    store: ':memory:',
    // Sandbox probing is not what these tests are about; exec is not granted anyway.
    security: { sandbox: 'off' },
    grant: { exec: [] },
    ...options,
  });
  opened.push(arbor);
  return { server, arbor };
}

/** Every event of a run, read to its end. */
export async function collect(events: AsyncIterable<ArborEvent>): Promise<ArborEvent[]> {
  const all: ArborEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

export const weather = defineTool({
  name: 'weather.lookup',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  run: ({ city }, ctx) => ({ city, temp_c: 21, path: ctx.nodePath, depth: ctx.depth }),
});

/** The text of every tool result the model was sent in its last request. */
export function toolResults(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
  return messages
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}
