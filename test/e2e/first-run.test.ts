import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDb, type EventLine } from '../helpers/arbor-process.js';
import { runArbor } from '../helpers/run-arbor.js';

const DEMO = fileURLToPath(new URL('../../examples/playbooks/demo.json', import.meta.url));

/** The NDJSON events arbor wrote on stderr (stderr is not a terminal here). */
function eventsOf(stderr: string): EventLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as EventLine);
}

describe('first run without an API key', () => {
  it('delegates to two sub-agents in parallel against the scripted model and says so', async () => {
    const { code, stdout, stderr } = await runArbor(['run', '--mock-llm', DEMO, 'Say hello.'], {
      env: { ARBOR_DB: tempDb(), ARBOR_API_KEY: '', OPENAI_API_KEY: '' },
    });
    expect(code).toBe(0);
    expect(stderr).toContain('the model is SCRIPTED by');
    // The root's answer, written from both sub-agents' results, is what stdout holds.
    expect(stdout).toContain('Two sub-agents ran side by side');
    expect(stdout).toContain('The greeter said: "Hello from arbor\'s scripted model"');
    expect(stdout).toContain('The scout listed the working directory with `fs.list`');

    const events = eventsOf(stderr);
    const spawned = events.filter((e) => e.event === 'node.spawned');
    expect(spawned.map((e) => [e.node_id, e.parent])).toEqual([
      ['n0', undefined],
      ['n1', 'n0'],
      ['n2', 'n0'],
    ]);
    const ended = events.filter((e) => e.event === 'node.end');
    expect(ended.map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
    expect(ended.at(-1)?.node_id).toBe('n0');
    // In parallel: both children were spawned before either of them ended.
    const indexOf = (event: EventLine) => events.indexOf(event);
    const lastSpawn = Math.max(...spawned.slice(1).map(indexOf));
    const firstChildEnd = Math.min(...ended.filter((e) => e.node_id !== 'n0').map(indexOf));
    expect(lastSpawn).toBeLessThan(firstChildEnd);
    // One sub-agent used a tool; the root only delegated.
    const toolCalls = events.filter((e) => e.event === 'tool.call');
    const listings = toolCalls.filter((e) => e.name === 'fs.list');
    expect(listings).toHaveLength(1);
    expect(['n1', 'n2']).toContain(listings[0]?.node_id);
    expect(
      events.filter((e) => e.event === 'tool.result' && e.name === 'fs.list' && e.is_error),
    ).toEqual([]);
    expect(toolCalls.filter((e) => e.node_id === 'n0').map((e) => e.name)).toEqual([
      'subagent.run',
      'subagent.run',
    ]);
  });

  it('exits 2 naming a playbook that does not exist', async () => {
    const { code, stderr } = await runArbor(['run', '--mock-llm', '/no/such/playbook.json', 'x'], {
      env: { ARBOR_DB: tempDb() },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('/no/such/playbook.json');
  });
});
