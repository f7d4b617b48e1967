// The web app, the API docs page (Swagger UI) and Django admin work under Sampan's strict
// Content-Security-Policy: each page's answer carries the policy, the page renders and is usable,
// and the browser reports no CSP violation (lib.mjs collects them with the page errors).
//
// Env: SAMPAN_URL, SAMPAN_USER, SAMPAN_PASSWORD, E2E_ARTIFACTS, CHROMIUM_PATH.
import { mkdir } from 'node:fs/promises';
import { assertStrictCsp, collectPageErrors, fail, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/$/, '');
const artifacts = process.env.E2E_ARTIFACTS || 'e2e-artifacts/csp';
const screenshot = screenshots(artifacts);

async function main() {
  const username = process.env.SAMPAN_USER;
  const password = process.env.SAMPAN_PASSWORD;
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  await mkdir(artifacts, { recursive: true });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.setDefaultTimeout(30_000);
  const pageErrors = collectPageErrors(page);
  const policies = {};
  try {
    await step('open the web app and log in', async () => {
      const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      policies.app = assertStrictCsp(response, 'the web app');
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      await page.getByTestId('create-workspace').waitFor();
      await screenshot(page, 'app');
    });

    await step('open the API docs (Swagger UI) and expand an operation', async () => {
      const response = await page.goto(`${baseUrl}/api/docs/`, { waitUntil: 'load' });
      policies.docs = assertStrictCsp(response, 'the API docs page');
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Sampan API' }).waitFor();
      // Tags start collapsed (docExpansion none): every tag is listed, a click lists its operations
      await page.locator('.opblock-tag').nth(15).waitFor();
      const tags = await page.locator('.opblock-tag').count();
      await page.locator('.opblock-tag[data-tag="datasets"]').click();
      await page.locator('.opblock').nth(19).waitFor();
      const operations = await page.locator('.opblock').count();
      if (operations < 20) fail(`Swagger UI lists ${operations} operations under datasets`);
      await page.locator('.opblock-summary').first().click();
      await page.locator('.opblock-body').first().waitFor();
      log(`Swagger UI lists ${tags} tags, ${operations} operations under datasets`);
      await screenshot(page, 'api-docs');
    });

    await step('open Django admin (the session is a staff user\'s: its index)', async () => {
      const response = await page.goto(`${baseUrl}/admin/`, { waitUntil: 'load' });
      policies.admin = assertStrictCsp(response, 'Django admin');
      await page.locator('#content-main').waitFor();
      await screenshot(page, 'admin');
    });

    if (pageErrors.length) fail(`errors or CSP violations in the page: ${pageErrors.join(' | ')}`);
    log(`policy: ${policies.app}`);
    console.log(`[e2e] RESULT ${JSON.stringify({ policies, violations: pageErrors.length })}`);
    return 0;
  } finally {
    await browser.close();
  }
}

run(main);
