// What every browser e2e script shares: timestamped logging, named steps that fail with one line,
// numbered screenshots, headless Chromium with the flags these machines need, page-error
// collection, and the exit status the pytest wrappers read (0, or 1 with "[e2e] FAILED: ...").
import path from 'node:path';
import { chromium } from 'playwright-core';

const started = Date.now();
export function log(message) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[e2e ${seconds}s] ${message}`);
}

export class StepError extends Error {}
export function fail(message) {
  throw new StepError(String(message).replace(/\s*\n\s*/g, ' — '));
}

/** Runs one named step; any error becomes a StepError naming the step (first line only). */
export async function step(description, action) {
  log(`${description} ...`);
  try {
    return await action();
  } catch (error) {
    if (error instanceof StepError) throw error;
    throw new StepError(`${description}: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
  }
}

/**
 * The name of the first wait that succeeds. The others keep waiting in the background, so their
 * later rejections are handled here (an unhandled one would end the process).
 */
export async function firstOf(waits) {
  const entries = Object.entries(waits);
  for (const [, wait] of entries) wait.catch(() => {});
  try {
    return await Promise.any(entries.map(([name, wait]) => wait.then(() => name)));
  } catch (error) {
    throw error instanceof AggregateError ? error.errors[0] : error;
  }
}

/** A `screenshot(page, name, { fullPage })` writing 01-name.png, 02-... into `folder`. */
export function screenshots(folder, { fullPage: defaultFullPage = false } = {}) {
  let count = 0;
  return async function screenshot(page, name, { fullPage = defaultFullPage } = {}) {
    count += 1;
    const file = path.join(folder, `${String(count).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file, fullPage });
    log(`screenshot ${file}`);
    return file;
  };
}

/** Headless Chromium (Debian's by default) with no background traffic. */
export function launchChromium(executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium') {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
  });
}

/**
 * Uncaught errors of the page and Content-Security-Policy violations, logged as they happen and
 * kept for the final check (every script fails when the list is not empty). Violations are seen
 * twice: Chromium's own console error ("Refused to ... because it violates the following Content
 * Security Policy directive") and the document's `securitypolicyviolation` event, reported by an
 * init script that runs before the page's own scripts in every document of the page.
 */
export function collectPageErrors(page) {
  const errors = [];
  const seen = new Set();
  const keep = (kind, message) => {
    if (seen.has(message)) return;
    seen.add(message);
    errors.push(message);
    log(`${kind}: ${message}`);
  };
  page.on('pageerror', (error) => keep('page error', error.message));
  page.on('console', (message) => {
    const text = message.text();
    if (text.startsWith('[csp] ')) keep('CSP violation', text.slice(6));
    else if (message.type() === 'error' && /Content Security Policy/i.test(text)) keep('CSP violation', text);
  });
  page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.warn(`[csp] ${event.violatedDirective} blocked ${event.blockedURI || 'inline code'} `
        + `(${event.sourceFile || document.location.pathname}:${event.lineNumber})`);
    });
  }).catch((error) => keep('page error', `could not watch for CSP violations: ${error.message}`));
  return errors;
}

/** Fails unless a response carries a Content-Security-Policy header that allows no inline script. */
export function assertStrictCsp(response, what) {
  const policy = response?.headers()['content-security-policy'];
  if (!policy) fail(`${what} has no Content-Security-Policy header`);
  const scripts = (policy.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'))
    ?? policy.split(';').map((d) => d.trim()).find((d) => d.startsWith('default-src')) ?? '');
  if (!scripts || /'unsafe-inline'|'unsafe-eval'|\*/.test(scripts)) fail(`${what}: scripts are not restricted (${scripts})`);
  return policy;
}

/** Runs `main` (resolving to an exit code) and exits: 1 with "[e2e] FAILED: ..." when it throws. */
export function run(main) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`[e2e] FAILED: ${error instanceof Error ? error.message : error}`);
      if (!(error instanceof StepError) && error instanceof Error && error.stack) console.error(error.stack);
      process.exit(1);
    },
  );
}

/** Whether `response` answers `method pathname` of the API (the query string ignored). */
export function isApi(response, method, pathname) {
  return response.request().method() === method && new URL(response.url()).pathname === pathname;
}

/** Logs the page's console errors and every API call answered 4xx/5xx (the login page's 401 marked as expected). */
export function logFailedCalls(page) {
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) log(`console error: ${message.text()}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || !url.pathname.startsWith('/api/')) return;
    const expected = url.pathname === '/api/v1/auth/me/' ? ' (expected before login)' : '';
    log(`${response.request().method()} ${url.pathname}${url.search} answered ${response.status()}${expected}`);
  });
}

/** Signs in through the login page and waits for the workspaces list; a refusal fails with its message. */
export async function logIn(page, baseUrl, username, password) {
  const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
  if (!response || !response.ok()) fail(`GET ${baseUrl}/login answered ${response ? response.status() : 'nothing'}`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/?$/), error: page.getByTestId('login-error').waitFor() });
  if (outcome === 'error') fail(`login refused: ${(await page.getByTestId('login-error').innerText()).trim()}`);
}
