#!/usr/bin/env node
// Drives the device SDK's javascript/index.html in headless Chromium: picks the fp32 model, drops
// the first image onto the drop zone, chooses the others with the file input, and prints each
// answer the page shows as one JSON line.
//
// Env: SDK_URL (the SDK folder served over HTTP), IMAGES (paths, ":"-separated), MODEL (fp32|int8),
//      FRONTEND (where playwright-core is installed), CHROMIUM_PATH (default /usr/bin/chromium),
//      E2E_ARTIFACTS (a screenshot goes there).
import path from 'node:path';
import { launchPage, showImage, waitForState } from './browser_support.mjs';

const images = process.env.IMAGES.split(':');
const { browser, page } = await launchPage(`${process.env.SDK_URL}/javascript/index.html`);
let failed = false;
try {
  const status = page.locator('#status');
  await waitForState(page, 'ready');
  if (process.env.MODEL === 'fp32') {
    await page.selectOption('#model', '../model.fp32.onnx');
    await waitForState(page, 'ready');
  }
  for (const [position, image] of images.entries()) {
    const result = await showImage(page, image, position);
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
