/**
 * A host tool behind a policy rule that asks: every `payments.refund` call waits for the host's
 * decision, taken here from the call's arguments as each `gate.opened` event arrives. Runs against
 * arbor's scripted model.
 */
import { Arbor, defineTool } from 'arbor';
import { startFakeLlm } from 'arbor/testing';
import { z } from 'zod';

const refunded: number[] = [];
const refund = defineTool({
  name: 'payments.refund',
  description: 'Refund an amount to the customer',
  input: z.object({ amount: z.number().positive() }),
  tags: ['egress'],
  run: ({ amount }) => {
    refunded.push(amount);
    return `refunded ${amount}`;
  },
});

const llm = await startFakeLlm({
  playbook: {
    scripts: [
      {
        steps: [
          { tool_calls: [{ name: 'payments.refund', args: { amount: 40 } }] },
          { tool_calls: [{ name: 'payments.refund', args: { amount: 4000 } }] },
          { text: 'Refunded 40; the 4000 refund was not approved.' },
        ],
      },
    ],
  },
});
const arbor = await Arbor.open({
  intelligence: { endpoints: [llm.url], model: 'scripted' },
  store: ':memory:',
  tools: [refund],
  security: { policy: [{ match: { tool: 'payments.*' }, action: 'ask', reason: 'money leaves' }] },
});
try {
  const run = arbor.run('Refund the two orders.');
  for await (const event of run.events) {
    if (event.type === 'gate.opened' && event.gate !== undefined) {
      const { amount } = event.args as { amount: number };
      const answer = amount <= 100 ? 'yes' : 'no';
      console.error(`gate ${event.gate}: refund ${amount}? ${answer}`);
      run.answerGate(event.gate, answer);
    }
  }
  const result = await run.result;
  console.log(`${result.status}: ${result.text} (refunded: ${refunded.join(', ')})`);
  process.exitCode = result.exitCode;
} finally {
  await arbor.close();
  await llm.close();
}
