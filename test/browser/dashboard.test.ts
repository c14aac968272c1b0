import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TranscriptMessage } from '../../src/protocol/index.js';
import { startUi } from '../../src/serve/ui-server.js';
import { SqliteStore } from '../../src/store/index.js';
import { describeWithBrowser, newPage, screenshot } from '../helpers/browser.js';
import { steps } from '../helpers/fake-llm.js';
import { seedBigRun } from '../helpers/seed-store.js';
import { callRpc, serveInProcess, userMessage } from '../helpers/serve.js';

/**
 * The dashboard in a real browser (Debian's Chromium, driven by playwright-core): signed in as a
 * principal of `arbor serve` or with `arbor ui`'s one-time token, it lists runs, follows a live
 * run's tree and timeline, opens a node's transcript, answers a gate, draws a 500-node run, and
 * offers an operator (only) the command that forks a run from a node's step.
 */

/** Root: spawn one child, ask a person, spawn a second (slower) child, answer. */
const GATED = {
  scripts: [
    {
      match: { contains: 'Child one:' },
      steps: [{ text: 'one done', usage: { input_tokens: 12, output_tokens: 3 } }],
    },
    {
      match: { contains: 'Child two:' },
      steps: [{ text: 'two done', delay_ms: 1500, usage: { input_tokens: 14, output_tokens: 4 } }],
    },
    {
      steps: [
        {
          tool_calls: [{ name: 'subagent.run', args: { instruction: 'Child one: look.' } }],
          usage: { input_tokens: 30, output_tokens: 6 },
        },
        {
          tool_calls: [{ name: 'ask_human', args: { question: 'Spawn the second child?' } }],
          usage: { input_tokens: 31, output_tokens: 6 },
        },
        {
          tool_calls: [{ name: 'subagent.run', args: { instruction: 'Child two: look.' } }],
          usage: { input_tokens: 32, output_tokens: 6 },
        },
        { text: 'root done', usage: { input_tokens: 33, output_tokens: 7 } },
      ],
    },
  ],
};

const OPS = 'ops-token-0123456789ab';
const ALICE = 'alice-token-0123456789';
const PRINCIPALS = {
  serve: {
    principal: [
      { name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' },
      { name: 'alice', role: 'user' as const, token: 'env:ALICE_TOKEN' },
    ],
  },
  env: { OPS_TOKEN: OPS, ALICE_TOKEN: ALICE },
};

/** A seeded run whose node 0.2 made four model calls (a tool round between the first two). */
function seedForkableRun(): { db: string; runId: string } {
  const seeded = seedBigRun(8, 3);
  const store = new SqliteStore(seeded.db);
  const later = Date.now();
  const append = (message: TranscriptMessage): void => {
    store.appendTranscript(seeded.runId, 'n2', later, { op: 'append', message });
  };
  append({ role: 'user', text: 'Go on.' });
  append({
    role: 'assistant',
    text: 'second call',
    tool_calls: [{ id: 'c2', name: 'fs.read', args: { path: 'a.txt' } }],
  });
  append({ role: 'tool', id: 'c2', name: 'fs.read', content: 'a', is_error: false });
  append({ role: 'assistant', text: 'third call', tool_calls: [] });
  append({ role: 'assistant', text: 'fourth call', tool_calls: [] });
  store.close();
  return seeded;
}

async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.fill('input[name=token]', token);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
}

describeWithBrowser('the web dashboard in Chromium', () => {
  it('follows a live run: the tree gains nodes, a gate is answered from the page, the run goes on and is listed', async () => {
    const { server } = await serveInProcess(GATED);
    const token = server.principals.generated?.token ?? '';
    // The task waits on the question: child one is done, child two not yet spawned.
    const asked = await callRpc(server.url, token, 'SendMessage', {
      message: userMessage('Do it in two parts.'),
    });
    expect(asked.result?.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const runId = String(asked.result?.task?.metadata?.['arbor/runId']);

    const page = await newPage();
    await signIn(page, server.url, token);
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.waitForSelector('.tree-node[data-path="0.1"][data-status="completed"]');
    expect(await page.locator('.tree-node').count()).toBe(2);
    const gate = page.locator('form.gate');
    await expect.poll(() => gate.textContent()).toContain('Spawn the second child?');
    await screenshot(page, 'dashboard-gate');

    await gate.locator('input[name=answer]').fill('Yes, go on.');
    await gate.locator('button[type=submit]').click();
    // The second child appears in the tree while the page is open, then the run completes.
    await page.waitForSelector('.tree-node[data-path="0.2"]');
    await screenshot(page, 'dashboard-live');
    await page.waitForSelector('.run-head .status.completed', { timeout: 20_000 });
    await page.waitForSelector('.tree-node[data-path="0.2"][data-status="completed"]');
    expect(await page.locator('form.gate').count()).toBe(0);
    // One timeline bar per node.
    await expect.poll(() => page.locator('svg.lanes g.lane').count()).toBe(3);

    // A node's transcript opens from the tree.
    await page.click('.tree-node[data-path="0.2"]');
    await page.waitForSelector('.node-panel .transcript .msg.assistant');
    expect(await page.locator('.node-panel .transcript').textContent()).toContain('two done');
    expect(await page.locator('.node-panel .instruction').textContent()).toBe('Child two: look.');
    await screenshot(page, 'dashboard-run');

    // The answer reached the root's model, and the runs list shows the finished run.
    await page.goto(`${server.url}/#/`);
    const row = page.locator(`tr.run-row[data-run="${runId}"]`);
    await row.waitFor();
    expect(await row.locator('.status').textContent()).toBe('completed');
    await screenshot(page, 'dashboard-runs');
    await page.context().close();
  });

  it('draws a 500-node run (tree and one bar per node) and stays responsive; arbor ui signs in once with its token', async () => {
    const { db, runId } = seedBigRun(500);
    const ui = await startUi({ db, host: '127.0.0.1', port: 0 });
    try {
      const page = await newPage();
      await page.goto(ui.signInUrl);
      await page.waitForSelector(`tr.run-row[data-run="${runId}"]`);
      // The token is gone from the address bar once used.
      expect(page.url()).not.toContain('token=');
      const began = Date.now();
      await page.goto(`${ui.url}/#/runs/${runId}`);
      await page.waitForSelector('.run-head .status.completed');
      await expect.poll(() => page.locator('.tree-node').count()).toBe(500);
      await expect.poll(() => page.locator('svg.lanes g.lane').count()).toBe(500);
      const drawn = Date.now() - began;
      await screenshot(page, 'dashboard-500');
      // Responsive: choosing a bar opens its node.
      await page.click('svg.lanes g.lane[data-path="0.3.7"]');
      await page.waitForSelector('.node-panel .transcript .msg.assistant');
      expect(await page.locator('.node-panel h2').textContent()).toContain('0.3.7');
      process.stderr.write(`500-node run drawn in ${drawn} ms\n`);
      await page.context().close();

      // The one-time token signs in once: another browser with the same URL is refused.
      const again = await newPage();
      await again.goto(ui.signInUrl);
      await again.waitForSelector('form.sign-in .problem');
      expect(await again.locator('form.sign-in .problem').textContent()).toContain('already used');
      await again.context().close();
    } finally {
      await ui.close();
    }
  });

  it('offers an operator "fork from here" on each step of a node, with the arbor replay command; a user sees none', async () => {
    const { db, runId } = seedForkableRun();
    const { server } = await serveInProcess(steps({ text: 'hi alice' }), {
      ...PRINCIPALS,
      flags: { db },
    });

    const ops = await newPage();
    await signIn(ops, server.url, OPS);
    await ops.goto(`${server.url}/#/runs/${runId}/n2`);
    await ops.waitForSelector('.node-panel[data-node="n2"] .transcript .msg.assistant');
    expect(await ops.locator('.node-panel h2').textContent()).toContain('0.2');
    // One button per model answer (step), none on the other messages.
    const forks = ops.locator('.node-panel .transcript .fork');
    expect(await forks.count()).toBe(4);
    expect(await ops.locator('.transcript .msg:not(.assistant) .fork-button').count()).toBe(0);
    // Nothing is shown until asked.
    expect(await ops.locator('.fork-command').count()).toBe(0);
    const third = ops.locator('.transcript .msg.assistant').nth(2);
    expect(await third.textContent()).toContain('third call');
    await third.getByRole('button', { name: 'fork from here' }).click();
    const command = third.locator('code.fork-command');
    await command.waitFor();
    expect(await command.textContent()).toBe(`arbor replay ${runId} --from 0.2@3`);
    expect(await ops.locator('.fork-command').count()).toBe(1);
    await screenshot(ops, 'dashboard-fork');

    // Another node: the path follows the node, the step counts from 1 again.
    await ops.goto(`${server.url}/#/runs/${runId}/n5`);
    await ops.waitForSelector('.node-panel[data-node="n5"] .transcript .msg.assistant');
    expect(await ops.locator('.node-panel h2').textContent()).toContain('0.2.1');
    await ops.getByRole('button', { name: 'fork from here' }).click();
    expect(await ops.locator('code.fork-command').textContent()).toBe(
      `arbor replay ${runId} --from 0.2.1@1`,
    );
    await ops.context().close();

    // A user (here, on a run of her own) reads the transcript but is offered no fork.
    const asked = await callRpc(server.url, ALICE, 'SendMessage', {
      message: userMessage('Say hi.'),
    });
    const own = String(asked.result?.task?.metadata?.['arbor/runId']);
    const alice = await newPage();
    await signIn(alice, server.url, ALICE);
    expect(await alice.locator('header.top .who').textContent()).toContain('(user)');
    await alice.goto(`${server.url}/#/runs/${own}`);
    await alice.click('.tree-node[data-path="0"]');
    await alice.waitForSelector('.node-panel .transcript .msg.assistant');
    expect(await alice.locator('.node-panel .transcript').textContent()).toContain('hi alice');
    expect(await alice.getByRole('button', { name: 'fork from here' }).count()).toBe(0);
    expect(await alice.locator('.fork, .fork-command').count()).toBe(0);
    await alice.context().close();
  });
});
