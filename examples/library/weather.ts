/**
 * A root agent that calls a host tool, then delegates to a sub-agent that calls it too; the
 * answers stream as they are written. Runs against arbor's scripted model unless ARBOR_INTEL and
 * ARBOR_MODEL name a real one.
 *
 *   npx tsx examples/library/weather.ts      (or compile with tsc and run with node)
 */
import { Arbor, defineTool } from 'arbor';
import { startFakeLlm } from 'arbor/testing';
import { z } from 'zod';

const weather = defineTool({
  name: 'weather.lookup',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  run: ({ city }, ctx) => ({ city, temp_c: city === 'Oslo' ? 21 : 17, asked_by: ctx.nodePath }),
});

// The scripted model: the root looks up Oslo itself and asks a sub-agent for Bergen.
const fake =
  process.env.ARBOR_INTEL === undefined
    ? await startFakeLlm({
        playbook: {
          scripts: [
            {
              match: { contains: 'Weather scout' },
              steps: [
                { tool_calls: [{ name: 'weather.lookup', args: { city: 'Bergen' } }] },
                { text: 'Bergen is 17 °C.' },
              ],
            },
            {
              steps: [
                { tool_calls: [{ name: 'weather.lookup', args: { city: 'Oslo' } }] },
                {
                  tool_calls: [
                    {
                      name: 'subagent.run',
                      args: {
                        instruction: 'Weather scout: look up Bergen with weather.lookup.',
                        tools: ['weather.lookup'],
                      },
                    },
                  ],
                },
                { text: 'Oslo is 21 °C, and the sub-agent says Bergen is 17 °C.' },
              ],
            },
          ],
        },
      })
    : undefined;

const arbor = await Arbor.open({
  intelligence: {
    endpoints: [fake?.url ?? (process.env.ARBOR_INTEL as string)],
    model: process.env.ARBOR_MODEL ?? 'scripted',
  },
  store: ':memory:',
  tools: [weather],
  limits: { maxDepth: 2 },
});
try {
  const run = arbor.run('What is the weather in Oslo and Bergen? Ask a sub-agent for Bergen.', {
    deadline: '2m',
  });
  for await (const event of run.events) {
    // The root is `0`; its children `0.1`, `0.2`, …
    if (event.type === 'text.delta' && event.path === '0') process.stdout.write(event.text);
    if (event.type === 'tool.call') console.error(`[${event.path}] calls ${event.name}`);
    if (event.type === 'node.spawned') console.error(`[${event.path}] spawned`);
  }
  const result = await run.result;
  console.log(`\n${result.status} (exit ${result.exitCode}): ${result.text}`);
  console.log(
    `tokens: ${result.subtreeUsage.input_tokens} in, ${result.subtreeUsage.output_tokens} out`,
  );
  process.exitCode = result.exitCode;
} finally {
  await arbor.close();
  await fake?.close();
}
