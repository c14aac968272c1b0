import type { RecordedRequest } from '../src/testing/index.js';
import { rootPhrase, type Framework } from './delegation-playbook.js';

interface ChatBody {
  stream?: boolean;
  messages?: { role: string; content?: unknown }[];
}

/**
 * Checks, from what the fake LLM received, that every framework really did the work being timed:
 * every request answered by a script, and each run's last root request carrying all its tool
 * results, none of them an error — a refused spawn or a failing tool would otherwise still reach
 * the scripted "All done.". arbor's agents stream every call (so each node's answer can be watched
 * as it is written); the peers' do not, and their requests must not ask for a stream.
 */
export function checkRequests(
  requests: readonly RecordedRequest[],
  framework: Framework,
  runs: number,
  n: number,
): void {
  for (const request of requests) {
    if (request.status !== 200 || request.script === null)
      throw new Error(
        `request ${request.seq} was not answered: ${request.error ?? request.status}`,
      );
    if (!framework.startsWith('arbor') && (request.body as ChatBody).stream === true)
      throw new Error(`request ${request.seq} asked for a stream`);
  }
  for (const shape of ['delegate', 'noop'] as const) {
    const finals = requests.filter(
      (r) => r.script?.name === rootPhrase(shape, framework) && r.tool_results === n,
    );
    if (finals.length !== runs)
      throw new Error(`${framework} ${shape}: ${finals.length} complete runs, expected ${runs}`);
    for (const request of finals) {
      const results = ((request.body as ChatBody).messages ?? []).filter((m) => m.role === 'tool');
      if (results.length !== n)
        throw new Error(`${framework} ${shape}: ${results.length} tool results, expected ${n}`);
      const bad = results.find((m) => /error/i.test(JSON.stringify(m.content)));
      if (bad !== undefined)
        throw new Error(`${framework} ${shape}: a tool failed: ${JSON.stringify(bad.content)}`);
    }
  }
}
