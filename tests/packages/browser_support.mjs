// Shared by the device SDK page drivers (browser_classify.mjs, browser_detect.mjs): headless
// Chromium through the frontend's playwright-core, a page whose console goes to stderr, waiting on
// the page's #status data-state, and showing it an image as a user does (drag and drop, or the file input).
//
// Env: FRONTEND (where playwright-core is installed), CHROMIUM_PATH (default /usr/bin/chromium).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.FRONTEND, 'package.json'));
const { chromium } = require('playwright-core');

export async function launchPage(url) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
  });
  const page = await browser.newPage();
  page.on('console', (message) => console.error(`[page ${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => console.error(`[page error] ${error}`));
  await page.goto(url);
  return { browser, page };
}

export async function waitForState(page, state, timeout = 60_000) {
  await page.waitForFunction((wanted) => document.querySelector('#status').dataset.state === wanted, state, { timeout });
}

// Shows the page an image (the first of a run dropped on #drop, a real drop event carrying the
// file; the others chosen with #file) and waits for its answer: the #result JSON.
export async function showImage(page, file, position) {
  await page.evaluate(() => { document.querySelector('#status').dataset.state = 'waiting'; });
  if (position === 0) await dropFile(page, file);
  else await page.setInputFiles('#file', file);
  await waitForState(page, 'done', 30_000);
  return JSON.parse(await page.locator('#result').textContent());
}

async function dropFile(page, file) {
  await page.evaluate(([name, data]) => {
    const raw = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([raw], name, { type: 'image/png' }));
    document.querySelector('#drop').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true }));
  }, [path.basename(file), readFileSync(file).toString('base64')]);
}
