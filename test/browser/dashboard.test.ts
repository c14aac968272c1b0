import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startUi } from '../../src/serve/ui-server.js';
import { describeWithBrowser, newPage, screenshot } from '../helpers/browser.js';
import { seedBigRun } from '../helpers/seed-store.js';
import { callRpc, serveInProcess, userMessage } from '../helpers/serve.js';

/**
 * The dashboard in a real browser (Debian's Chromium, driven by playwright-core): signed in as a
 * principal of `arbor serve` or with `arbor ui`'s one-time token, it lists runs, follows a live
 * run's tree and timeline, opens a node's transcript, answers a gate, and draws a 500-node run.
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
});
