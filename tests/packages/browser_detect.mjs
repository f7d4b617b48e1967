#!/usr/bin/env node
// Drives the detector device SDK's javascript/index.html in headless Chromium: picks the fp32 model
// and a score threshold, drops the first image onto the drop zone, chooses the others with the file
// input, and prints each answer the page shows as one JSON line, with the rows of its table and how
// many canvas pixels differ from the plain image drawn at the same zoom (the drawn boxes).
//
// Env: SDK_URL (the SDK folder served over HTTP), IMAGES (paths, ":"-separated), THRESHOLD,
//      FRONTEND (where playwright-core is installed), CHROMIUM_PATH (default /usr/bin/chromium),
//      E2E_ARTIFACTS (a screenshot goes there).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launchPage, showImage, waitForState } from './browser_support.mjs';

const images = process.env.IMAGES.split(':');
const { browser, page } = await launchPage(`${process.env.SDK_URL}/javascript/index.html`);
let failed = false;
try {
  await waitForState(page, 'ready');
  await page.selectOption('#model', '../model.fp32.onnx');
  await waitForState(page, 'ready');
  await page.fill('#threshold', process.env.THRESHOLD);
  for (const [position, image] of images.entries()) {
    const result = await showImage(page, image, position);
    const rows = await page.locator('#answer tr').count();
    // the canvas against the plain image: the pixels the drawn boxes and labels changed
    const painted = await page.evaluate(async (data) => {
      const raw = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([raw], { type: 'image/png' }));
      const canvas = document.querySelector('#canvas');
      const zoom = Number(canvas.dataset.zoom);
      const plain = new OffscreenCanvas(canvas.width, canvas.height).getContext('2d');
      plain.imageSmoothingEnabled = false;
      plain.setTransform(zoom, 0, 0, zoom, 0, 0);
      plain.drawImage(bitmap, 0, 0);
      const a = plain.getImageData(0, 0, canvas.width, canvas.height).data;
      const b = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      if (a.length !== b.length) return -1;
      let differing = 0;
      for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) differing++;
      return differing;
    }, readFileSync(image).toString('base64'));
    const status = await page.locator('#status').textContent();
    console.log(JSON.stringify({ image, rows, painted, status, ...result }));
  }
  if (process.env.E2E_ARTIFACTS) await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS, 'detector-sdk-page.png') });
} catch (error) {
  console.log(`FAILED: ${error}`);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
