#!/usr/bin/env node
// The main pages at 1024x700 and 1440x900 in headless Chromium: no page-level horizontal overflow
// (document.scrollingElement.scrollWidth > clientWidth), the sidebar collapsed behind the burger at
// 1024 px and shown at 1440 px. For each overflowing page the widest elements are printed (test id,
// tag, classes, right edge) so the component that pushes the page wider can be found.
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_PAGES (JSON list of {name, path, ready}: the
//      page's path and the test id(s) to wait for, `a|b` for either), E2E_LANGUAGE (en or zh-CN, default en),
//      E2E_ARTIFACTS (screenshots and overflow.json), CHROMIUM_PATH.
// Exit status: 0 when no page overflows, 1 with "[e2e] FAILED: ..." naming the pages otherwise.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, launchChromium, log, run, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const pages = JSON.parse(process.env.E2E_PAGES || '[]');
const language = process.env.E2E_LANGUAGE || 'en';
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const VIEWPORTS = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
];
const STEP_TIMEOUT_MS = 30_000;

/** In the page: whether it scrolls sideways, and the elements that stick out furthest on the right. */
function measureOverflow() {
  const root = document.scrollingElement || document.documentElement;
  const width = root.clientWidth;
  const describe = (element) => {
    const testId = element.closest('[data-testid]')?.getAttribute('data-testid');
    const own = element.getAttribute('data-testid');
    const classes = [...element.classList].filter((name) => !/^m_[0-9a-f]+$/.test(name)).slice(0, 3).join('.');
    return `${element.tagName.toLowerCase()}${own ? `[data-testid=${own}]` : ''}${classes ? `.${classes}` : ''}`
      + `${!own && testId ? ` inside [data-testid=${testId}]` : ''}`;
  };
  const sticking = [];
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const right = box.right + window.scrollX;
    if (right <= width + 1) continue;
    // Inside a scrolling box (a table's scroll area) an element may be wider: only page-level counts.
    let clipped = false;
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
      const style = getComputedStyle(parent);
      if (/(auto|scroll|hidden|clip)/.test(style.overflowX) && parent.getBoundingClientRect().right <= width + 1) {
        clipped = true;
        break;
      }
      if (style.position === 'fixed') break;
    }
    if (!clipped) sticking.push({ node: element, element: describe(element), right: Math.round(right), width: Math.round(box.width) });
  }
  // The deepest offenders name the culprit best (an element none of whose descendants sticks out);
  // the outermost says which part of the page it is in.
  const leaves = sticking.filter((item) => !sticking.some((other) => other !== item && item.node.contains(other.node)));
  leaves.sort((a, b) => b.right - a.right);
  const plain = ({ element, right, width: w }) => ({ element, right, width: w });
  return {
    scrollWidth: root.scrollWidth,
    clientWidth: width,
    overflows: root.scrollWidth > width + 1,
    widest: leaves.slice(0, 8).map(plain),
    outermost: sticking.slice(0, 3).map(plain),
  };
}

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (!pages.length) fail('E2E_PAGES names no page');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: VIEWPORTS[0], locale: language === 'zh-CN' ? 'zh-CN' : 'en-US' });
  await context.addInitScript((lang) => window.localStorage.setItem('sampan.language', lang), language);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const pageErrors = collectPageErrors(page);
  const results = [];
  try {
    await step('log in', async () => {
      await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    });
    await step('the measurement sees an overflow when there is one', async () => {
      // A page that fits, then a 2000 px wide block put into it: the check must name the block.
      await page.goto(`${baseUrl}${pages[0].path}`, { waitUntil: 'domcontentloaded' });
      await page.locator(pages[0].ready.split('|').map((id) => `[data-testid="${id}"]`).join(', ')).first().waitFor();
      await page.evaluate(() => {
        const wide = document.createElement('div');
        wide.setAttribute('data-testid', 'layout-probe');
        wide.style.width = '2000px';
        wide.style.height = '10px';
        document.querySelector('main')?.appendChild(wide);
      });
      const measured = await page.evaluate(measureOverflow);
      if (!measured.overflows || !measured.widest.some((item) => item.element.includes('layout-probe'))) {
        fail(`a 2000 px block went unnoticed: ${JSON.stringify(measured)}`);
      }
    });
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      for (const { name, path: pagePath, ready } of pages) {
        await step(`${name} at ${viewport.width}x${viewport.height}`, async () => {
          await page.goto(`${baseUrl}${pagePath}`, { waitUntil: 'domcontentloaded' });
          // `ready`: a test id, or several separated by | (the first to show wins)
          await page.locator(ready.split('|').map((id) => `[data-testid="${id}"]`).join(', ')).first().waitFor();
          await page.waitForLoadState('networkidle').catch(() => {});
          await page.waitForTimeout(400); // charts and tables settle after their data
          const measured = await page.evaluate(measureOverflow);
          const file = path.join(artifacts, `${language}-${viewport.width}-${name}.png`);
          await page.screenshot({ path: file });
          results.push({ page: name, path: pagePath, viewport: `${viewport.width}x${viewport.height}`, ...measured });
          if (measured.overflows) {
            log(`OVERFLOW ${name} at ${viewport.width}px: scrollWidth ${measured.scrollWidth} > ${measured.clientWidth}`);
            for (const item of measured.widest) log(`   ${item.element} reaches ${item.right}px (${item.width}px wide)`);
            for (const item of measured.outermost) log(`   in ${item.element} (right ${item.right}px)`);
          } else {
            log(`fits: ${name} at ${viewport.width}px (scrollWidth ${measured.scrollWidth})`);
          }
        });
      }
      await step(`the sidebar at ${viewport.width}px`, async () => {
        await page.goto(`${baseUrl}/workspaces`, { waitUntil: 'domcontentloaded' });
        await page.getByTestId('nav-workspaces').waitFor({ state: 'attached' });
        const burger = page.getByTestId('nav-burger');
        const narrow = viewport.width < 1200;
        if ((await burger.isVisible()) !== narrow) fail(`the burger is ${narrow ? 'hidden' : 'shown'} at ${viewport.width}px`);
        const jobs = page.getByTestId('nav-jobs');
        const inView = async () => {
          const box = await jobs.boundingBox();
          return !!box && box.x >= 0 && box.x + box.width <= viewport.width;
        };
        if (narrow) {
          if (await inView()) fail(`the sidebar covers the page at ${viewport.width}px before the burger is clicked`);
          await burger.click();
          await page.waitForFunction(() => {
            const box = document.querySelector('[data-testid=nav-jobs]')?.getBoundingClientRect();
            return !!box && box.x >= 0;
          });
          await page.screenshot({ path: path.join(artifacts, `${language}-${viewport.width}-navigation-open.png`) });
          await jobs.click();
          await page.waitForURL((url) => url.pathname === '/jobs');
          await page.waitForFunction(() => (document.querySelector('[data-testid=nav-jobs]')?.getBoundingClientRect().right ?? 1) <= 0);
        } else if (!(await inView())) {
          fail(`the sidebar is not shown at ${viewport.width}px`);
        }
      });
    }
  } finally {
    await writeFile(path.join(artifacts, `overflow-${language}.json`), JSON.stringify(results, null, 2));
    await browser.close();
  }
  if (pageErrors.length) fail(`errors on the pages: ${pageErrors.join(' | ')}`);
  const overflowing = results.filter((result) => result.overflows);
  if (overflowing.length) {
    fail(`horizontal overflow: ${overflowing.map((r) => `${r.page} at ${r.viewport} (${r.scrollWidth}px; widest: ${r.widest[0]?.element ?? '?'})`).join('; ')}`);
  }
  log(`${results.length} page views fit their width`);
  return 0;
}

run(main);
