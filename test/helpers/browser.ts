import { existsSync, mkdirSync } from 'node:fs';
import { afterAll } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describeNeeding } from './needs.js';

/** Debian's Chromium: playwright-core drives it and never downloads a browser. */
export const CHROMIUM = process.env.ARBOR_CHROMIUM ?? '/usr/bin/chromium';

let launched: Promise<Browser> | undefined;

/** One Chromium for the test file, closed after it. */
export function browser(): Promise<Browser> {
  launched ??= chromium.launch({
    executablePath: CHROMIUM,
    args: ['--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return launched;
}

afterAll(async () => {
  await (await launched?.catch(() => undefined))?.close();
});

/** A fresh page (its own cookies) at a fixed size, so screenshots are comparable. */
export async function newPage(): Promise<Page> {
  const context = await (await browser()).newContext({ viewport: { width: 1280, height: 860 } });
  return context.newPage();
}

/**
 * Where the dashboard tests write their screenshots when `ARBOR_SCREENSHOTS` names a directory
 * (`ARBOR_SCREENSHOTS=docs/img npm run test:e2e -- test/browser` remakes the ones in docs/).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.ARBOR_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: false });
}

/** A `describe` for tests that need Chromium (see `describeNeeding`). */
export function describeWithBrowser(name: string, body: () => void): void {
  const missing = existsSync(CHROMIUM)
    ? undefined
    : `${CHROMIUM} is missing (apt-get install chromium)`;
  describeNeeding(name, 'Chromium', missing, body);
}
