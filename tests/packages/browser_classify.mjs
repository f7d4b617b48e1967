#!/usr/bin/env node
// Drives the device SDK's javascript/index.html in headless Chromium: picks the fp32 model, drops
// the first image onto the drop zone, chooses the others with the file input, and prints each
// answer the page shows as one JSON line.
//
// Env: SDK_URL (the SDK folder served over HTTP), IMAGES (paths, ":"-separated), MODEL (fp32|int8),
//      FRONTEND (where playwright-core is installed), CHROMIUM_PATH (default /usr/bin/chromium),
//      E2E_ARTIFACTS (a screenshot goes there).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.FRONTEND, 'package.json'));
const { chromium } = require('playwright-core');

const images = process.env.IMAGES.split(':');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run'],
});
let failed = false;
try {
  const page = await browser.newPage();
  page.on('console', (message) => console.error(`[page ${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => console.error(`[page error] ${error}`));
  await page.goto(`${process.env.SDK_URL}/javascript/index.html`);
  const status = page.locator('#status');
  await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
  if (process.env.MODEL === 'fp32') {
    await page.selectOption('#model', '../model.fp32.onnx');
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'ready', null, { timeout: 60_000 });
  }
  for (const [position, image] of images.entries()) {
    await page.evaluate(() => { document.querySelector('#status').dataset.state = 'waiting'; });
    if (position === 0) {
      // a real drop event carrying the file, as a user's drag and drop delivers it
      const bytes = readFileSync(image).toString('base64');
      await page.evaluate(([name, data]) => {
        const raw = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([raw], name, { type: 'image/png' }));
        document.querySelector('#drop').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true }));
      }, [path.basename(image), bytes]);
    } else {
      await page.setInputFiles('#file', image);
    }
    await page.waitForFunction(() => document.querySelector('#status').dataset.state === 'done', null, { timeout: 30_000 });
    const result = JSON.parse(await page.locator('#result').textContent());
    const shown = await page.locator('#answer tr').count();
    console.log(JSON.stringify({ image, shown_rows: shown, status: await status.textContent(), ...result }));
  }
  if (process.env.E2E_ARTIFACTS) await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS, 'device-sdk-page.png') });
} catch (error) {
  console.log(`FAILED: ${error}`);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
