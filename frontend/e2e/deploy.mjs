#!/usr/bin/env node
// Browser e2e of deployment, driven through the real UI of a live Sampan server, starting from a
// trained model version (the Python test makes it through the API to save time):
// log in -> open the model version -> Deploy -> Hosted API -> create a key (shown once) -> the
// try-it panel (signed in, no key) classifies a digit image, and the key sent from code gets the same
// answer -> the calls are counted in the
// usage charts -> the code snippets carry the real endpoint -> stop and start with confirmation ->
// switch to another model version (the answer names it) and roll back -> revoke the key ->
// build an on-prem server package and a device SDK from the model version (live job progress) ->
// the device SDK's compression report -> download both archives.
//
// Env: SAMPAN_URL (default http://127.0.0.1:8000), SAMPAN_USER, SAMPAN_PASSWORD,
//      E2E_MODEL_VERSION (id of a trained model version the user can deploy),
//      E2E_SWITCH_TO (another model version of the same project, to switch to and roll back from),
//      E2E_IMAGE (a digit image), E2E_IMAGE_LABEL (its class, logged next to the answer),
//      E2E_ARTIFACTS (screenshots and downloads, default ./e2e-artifacts),
//      CHROMIUM_PATH (default /usr/bin/chromium), E2E_BUILD_TIMEOUT_S (default 600).
// Downloads land in E2E_ARTIFACTS as server.zip and device.zip; the summary is written to
// E2E_ARTIFACTS/deploy.json. Exit status 0 when every step passed, 1 with "FAILED: ..." otherwise.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { collectPageErrors, fail, firstOf, launchChromium, log, run, screenshots, step } from './lib.mjs';

const baseUrl = (process.env.SAMPAN_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '');
const username = process.env.SAMPAN_USER;
const password = process.env.SAMPAN_PASSWORD;
const modelVersionId = Number(process.env.E2E_MODEL_VERSION);
const switchToId = Number(process.env.E2E_SWITCH_TO);
const imagePath = process.env.E2E_IMAGE;
const imageLabel = process.env.E2E_IMAGE_LABEL ?? '';
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || 'e2e-artifacts');
const screenshot = screenshots(artifacts);
const buildTimeoutMs = Number(process.env.E2E_BUILD_TIMEOUT_S || 600) * 1000;
const STEP_TIMEOUT_MS = 20_000;
const USAGE_TIMEOUT_MS = 45_000;

function isApi(response, method, pathname) {
  return response.request().method() === method && new URL(response.url()).pathname === pathname;
}

/** POSTs the digit image to the deployment's predict URL with a key, as a client's code does (no cookie). */
async function predictWithKey(deploymentId, key) {
  const form = new FormData();
  form.append('file', new Blob([await readFile(imagePath)], { type: 'image/png' }), path.basename(imagePath));
  const response = await fetch(`${baseUrl}/api/v1/deployments/${deploymentId}/predict/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

async function main() {
  if (!username || !password) fail('SAMPAN_USER and SAMPAN_PASSWORD must be set');
  if (!Number.isInteger(modelVersionId) || modelVersionId < 1) fail(`E2E_MODEL_VERSION must be a model version id, got ${process.env.E2E_MODEL_VERSION}`);
  if (!Number.isInteger(switchToId) || switchToId === modelVersionId) fail(`E2E_SWITCH_TO must be another model version id, got ${process.env.E2E_SWITCH_TO}`);
  if (!imagePath) fail('E2E_IMAGE must name a digit image');
  const imageBytes = await readFile(imagePath).catch((error) => fail(`cannot read E2E_IMAGE ${imagePath}: ${error.message}`));
  await mkdir(artifacts, { recursive: true });
  log(`server ${baseUrl}, user ${username}, model version #${modelVersionId}, image ${imagePath} (class ${imageLabel}), artifacts in ${artifacts}`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);

  const pageErrors = collectPageErrors(page);
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) log(`console error: ${message.text()}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || !url.pathname.startsWith('/api/')) return;
    const expected = url.pathname === '/api/v1/auth/me/' ? ' (expected before login)' : '';
    log(`${response.request().method()} ${url.pathname}${url.search} answered ${response.status()}${expected}`);
  });

  const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const summary = { model_version: modelVersionId };

  try {
    await step('log in', async () => {
      const response = await page.goto(`${baseUrl}/login`, { waitUntil: 'domcontentloaded' });
      if (!response || !response.ok()) fail(`GET ${baseUrl}/login answered ${response ? response.status() : 'nothing'}`);
      await page.getByTestId('login-username').fill(username);
      await page.getByTestId('login-password').fill(password);
      await page.getByTestId('login-submit').click();
      const outcome = await firstOf({ ok: page.waitForURL(/\/workspaces\/?$/), error: page.getByTestId('login-error').waitFor() });
      if (outcome === 'error') fail(`login refused: ${(await page.getByTestId('login-error').innerText()).trim()}`);
    });

    let projectId = null;
    const deploymentId = await step(`open model version #${modelVersionId} and deploy it as a hosted API`, async () => {
      await page.goto(`${baseUrl}/model-versions/${modelVersionId}`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('deploy-buttons').waitFor();
      await page.getByTestId('eval-accuracy').waitFor().catch(() => {});
      await screenshot(page, 'model-version');
      await page.getByTestId('deploy-hosted').click();
      const name = page.getByTestId('deployment-name-input');
      await name.fill(`digits-${suffix}`);
      const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/deployments/'));
      created.catch(() => {});
      await page.getByTestId('deployment-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST /api/v1/deployments/ answered ${response.status()}: ${await response.text()}`);
      const deployment = await response.json();
      if (deployment.model_version !== modelVersionId) fail(`the deployment serves #${deployment.model_version}, not #${modelVersionId}`);
      await page.waitForURL(new RegExp(`/deployments/${deployment.id}/keys/?$`));
      await page.getByTestId('deployment-keys-empty').waitFor();
      log(`deployment #${deployment.id} "${deployment.name}" ${deployment.status}, endpoint ${deployment.predict_url}`);
      summary.deployment = deployment.id;
      projectId = deployment.project;
      return deployment.id;
    });

    const secret = await step('create a key with a quota and see it once', async () => {
      await page.getByTestId('create-deployment-key').click();
      await page.getByTestId('deployment-key-name-input').fill('e2e kiosk');
      await page.getByTestId('deployment-key-quota-input').fill('600');
      const created = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/deployments/${deploymentId}/keys/`));
      created.catch(() => {});
      await page.getByTestId('deployment-key-create-submit').click();
      const response = await created;
      if (response.status() !== 201) fail(`POST keys answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().postDataJSON();
      if (sent.quota_per_minute !== 600 || sent.name !== 'e2e kiosk') fail(`the key request sent ${JSON.stringify(sent)}`);
      const shown = (await page.getByTestId('deployment-key-secret').innerText()).trim();
      if (!shown.startsWith('spd_')) fail(`the key shown is "${shown.slice(0, 8)}...", not an spd_ key`);
      await page.waitForTimeout(400); // let the dialogs' transitions end before the picture
      await screenshot(page, 'key-created');
      log(`key ${shown.slice(0, 12)}... shown once (quota 600/min)`);
      return shown;
    });

    await step('the key list shows its prefix, not the key', async () => {
      await page.getByTestId('deployment-key-done').click();
      const table = page.getByTestId('deployment-keys-table');
      await table.waitFor();
      const text = await table.innerText();
      if (!text.includes(secret.slice(0, 12))) fail(`the key list does not show the prefix ${secret.slice(0, 12)}: ${text}`);
      if (text.includes(secret)) fail('the key list shows the whole key');
      if (!text.includes('600/min')) fail(`the key list does not show the quota: ${text}`);
    });

    const answer = await step('try it: signed in, no key; classify the digit image; the key from code gets the same answer', async () => {
      await page.getByTestId('deployment-tab-try').click();
      await page.waitForURL(new RegExp(`/deployments/${deploymentId}/try/?$`));
      await page.getByTestId('try-no-key').waitFor();
      if (await page.locator('input[type="password"]').count()) fail('the try-it panel asks for a key: signed in, it needs none');
      await page.locator('input[type="file"]').setInputFiles(imagePath);
      await page.getByTestId('try-preview').waitFor();
      const called = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/deployments/${deploymentId}/try/`));
      called.catch(() => {});
      await page.getByTestId('try-submit').click();
      const response = await called;
      const headers = await response.request().allHeaders();
      if (headers.authorization) fail('the try-it call sent a key: signed in, it needs none');
      if (response.status() !== 200) fail(`try answered ${response.status()}: ${await response.text()}`);
      const body = await response.json();
      const byKey = await predictWithKey(deploymentId, secret);
      if (byKey.status !== 200) fail(`predict with the key answered ${byKey.status}: ${JSON.stringify(byKey.body)}`);
      if (byKey.body.predictions[0].top_k[0].label !== body.predictions[0].top_k[0].label) fail('the key from code gets another answer than the try-it panel');
      await page.getByTestId('try-result').waitFor();
      const top = await page.getByTestId('try-label-0').getAttribute('data-label');
      const shown = await page.locator('[data-testid^="try-label-"]').count();
      if (top !== body.predictions[0].top_k[0].label) fail(`the panel shows "${top}", the API answered "${body.predictions[0].top_k[0].label}"`);
      if (shown !== body.predictions[0].top_k.length || shown !== 5) fail(`the panel shows ${shown} labels, the API answered ${body.predictions[0].top_k.length} (top_k 5)`);
      const latency = await page.getByTestId('try-latency').innerText();
      await screenshot(page, 'try-it');
      log(`answer: "${top}" (${(body.predictions[0].top_k[0].score * 100).toFixed(1)}%) for a "${imageLabel}", ${latency}, model ${body.model_version.name}`);
      summary.answer = { label: top, score: body.predictions[0].top_k[0].score, latency_ms: body.latency_ms };
      return body;
    });

    await step('the call is counted in the usage charts', async () => {
      await page.getByTestId('deployment-tab-usage').click();
      const totals = page.getByTestId('usage-totals');
      await totals.waitFor();
      // Usage is flushed from the web process about every second; the panel refreshes live.
      await page
        .waitForFunction(() => Number(document.querySelector('[data-testid="usage-totals"]')?.getAttribute('data-calls')) >= 2, null, {
          timeout: USAGE_TIMEOUT_MS,
        })
        .catch(async () => fail(`usage still counts ${await totals.getAttribute('data-calls')} calls after ${USAGE_TIMEOUT_MS / 1000}s`));
      const calls = Number(await totals.getAttribute('data-calls'));
      const errors = Number(await totals.getAttribute('data-errors'));
      if (calls !== 2 || errors !== 0) fail(`usage counts ${calls} calls and ${errors} errors; two successful calls were made (the try-it panel's and one with the key)`);
      await page.getByTestId('usage-calls-chart').locator('.recharts-surface').first().waitFor();
      await page.getByTestId('usage-latency-chart').locator('.recharts-surface').first().waitFor();
      const p50 = await page.getByTestId('usage-p50').innerText();
      await page.waitForTimeout(600);
      await screenshot(page, 'usage');
      log(`usage: ${calls} call, ${errors} errors, p50 ${p50}`);
      summary.usage = { calls, errors, p50 };
    });

    await step('the code snippets carry the real endpoint', async () => {
      await page.getByTestId('deployment-tab-code').click();
      const url = `${baseUrl}/api/v1/deployments/${deploymentId}/predict/`;
      const curl = await page.getByTestId('snippet-curl').innerText();
      if (!curl.includes(url)) fail(`the curl snippet does not call ${url}`);
      await page.getByTestId('snippet-tab-python').click();
      const python = await page.getByTestId('snippet-python').innerText();
      if (!python.includes('from sampan import Client') || !python.includes(`client.deployments.get(${deploymentId})`)) fail(`the Python snippet: ${python}`);
      await page.getByTestId('snippet-tab-javascript').click();
      if (!(await page.getByTestId('snippet-javascript').innerText()).includes(url)) fail('the JavaScript snippet lacks the endpoint');
      await screenshot(page, 'snippets');
    });

    await step('stop (confirmed) refuses calls; start serves again; the history records both', async () => {
      await page.getByTestId('deployment-tab-overview').click();
      await page.getByTestId('deployment-stop').click();
      await page.getByTestId('deployment-confirm').click();
      await page.locator('[data-testid^="deployment-status-"][data-status="stopped"]').first().waitFor();
      const refused = await page.evaluate(
        async ({ url, key, image }) =>
          (
            await fetch(url, {
              method: 'POST',
              headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ instances: [{ image }] }),
              credentials: 'omit',
            })
          ).status,
        { url: `${baseUrl}/api/v1/deployments/${deploymentId}/predict/`, key: secret, image: imageBytes.toString('base64') },
      );
      if (![409, 503].includes(refused)) fail(`a stopped deployment answered ${refused}`);
      await page.getByTestId('deployment-start').click();
      await page.getByTestId('deployment-confirm').click();
      await page.locator('[data-testid^="deployment-status-"][data-status="active"]').first().waitFor();
      const actions = await page.getByTestId('deployment-history-entry').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-action')));
      if (actions.join(',') !== 'start,stop,create') fail(`history shows ${actions.join(', ')}`);
      await screenshot(page, 'overview');
      log(`stopped deployment answered ${refused}; history ${actions.join(' <- ')}`);
    });

    await step(`switch to model version #${switchToId} (confirmed): try-it answers from it; roll back`, async () => {
      const select = page.getByTestId('deployment-switch-select');
      await page.waitForFunction(() => !document.querySelector('[data-testid="deployment-switch-select"]')?.hasAttribute('disabled'));
      await select.click();
      const option = page.getByRole('option').first();
      const targetName = (await option.innerText()).trim();
      await option.click();
      await page.getByTestId('deployment-switch').click();
      const switched = page.waitForResponse((response) => isApi(response, 'POST', `/api/v1/deployments/${deploymentId}/switch/`));
      switched.catch(() => {});
      await page.getByTestId('deployment-confirm').click();
      const response = await switched;
      if (response.status() !== 200) fail(`switch answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().postDataJSON();
      if (sent.model_version !== switchToId) fail(`the switch sent ${JSON.stringify(sent)}, expected model version #${switchToId}`);
      await page.waitForFunction((name) => document.querySelector('[data-testid="deployment-model-version"]')?.textContent === name, targetName);
      await page.getByTestId('deployment-tab-try').click();
      await page.locator('input[type="file"]').setInputFiles(imagePath);
      const called = page.waitForResponse((r) => isApi(r, 'POST', `/api/v1/deployments/${deploymentId}/try/`));
      called.catch(() => {});
      await page.getByTestId('try-submit').click();
      const answered = await called;
      if (answered.status() !== 200) fail(`try after the switch answered ${answered.status()}: ${await answered.text()}`);
      const served = (await page.getByTestId('try-model-version').innerText()).trim();
      if (served !== targetName) fail(`after switching to ${targetName} the answer came from ${served}`);
      await screenshot(page, 'try-after-switch');
      await page.getByTestId('deployment-tab-overview').click();
      const rollback = page.getByTestId('deployment-rollback');
      await page.waitForFunction(() => (document.querySelector('[data-testid="deployment-rollback"]')?.textContent ?? '').includes('Roll back to'));
      await rollback.click();
      await page.getByTestId('deployment-confirm').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid="deployment-history-entry"]')?.getAttribute('data-action') === 'rollback',
      );
      const back = (await page.getByTestId('deployment-model-version').innerText()).trim();
      const actions = await page.getByTestId('deployment-history-entry').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-action')));
      if (actions.join(',') !== 'rollback,switch,start,stop,create') fail(`history shows ${actions.join(', ')}`);
      await screenshot(page, 'rolled-back');
      log(`switched to ${targetName} (the answer named it), rolled back to ${back}; history ${actions.join(' <- ')}`);
    });

    await step('revoke the key (confirmed): calls with it are refused with 401; the signed-in try-it still works', async () => {
      await page.getByTestId('deployment-tab-keys').click();
      const revoke = page.locator('[data-testid^="deployment-key-revoke-"]').first();
      const keyId = (await revoke.getAttribute('data-testid')).replace('deployment-key-revoke-', '');
      await revoke.click();
      const revoked = page.waitForResponse((response) => isApi(response, 'DELETE', `/api/v1/deployments/${deploymentId}/keys/${keyId}/`));
      revoked.catch(() => {});
      await page.getByTestId('deployment-key-revoke-confirm').click();
      const response = await revoked;
      if (response.status() !== 204) fail(`DELETE key answered ${response.status()}`);
      await page.waitForFunction((id) => document.querySelector(`[data-testid="deployment-key-status-${id}"]`)?.textContent === 'revoked', keyId);
      const refused = await predictWithKey(deploymentId, secret);
      if (refused.status !== 401 || refused.body?.error?.code !== 'key_revoked') fail(`the revoked key got ${refused.status} ${JSON.stringify(refused.body)}`);
      await page.getByTestId('deployment-tab-try').click();
      await page.locator('input[type="file"]').setInputFiles(imagePath);
      await page.getByTestId('try-submit').click();
      await page.getByTestId('try-result').waitFor();
      await screenshot(page, 'try-after-revoke');
      log(`revoked key refused: ${refused.status} ${refused.body.error.code}; the signed-in try-it still answers`);
    });

    const packages = await step('build an on-prem server package and a device SDK from the model version', async () => {
      await page.goto(`${baseUrl}/model-versions/${modelVersionId}`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId('deploy-serving').waitFor();
      const ids = {};
      for (const [kind, testId] of [
        ['server', 'deploy-server-package'],
        ['device', 'deploy-device-sdk'],
      ]) {
        const created = page.waitForResponse((response) => isApi(response, 'POST', '/api/v1/packages/'));
        created.catch(() => {});
        await page.getByTestId(testId).click();
        const response = await created;
        if (response.status() !== 201) fail(`POST /api/v1/packages/ (${kind}) answered ${response.status()}: ${await response.text()}`);
        const pkg = await response.json();
        if (pkg.kind !== kind) fail(`asked for a ${kind} package, got ${pkg.kind}`);
        ids[kind] = pkg.id;
        await page.getByTestId(`package-row-${pkg.id}`).waitFor();
        log(`${kind} package #${pkg.id} ${pkg.status} (job #${pkg.job})`);
      }
      return ids;
    });

    await step(`watch both builds until they succeed (${buildTimeoutMs / 1000}s)`, async () => {
      const deadline = Date.now() + buildTimeoutMs;
      const last = {};
      const messages = new Set();
      let shotBuilding = false;
      for (;;) {
        const states = {};
        for (const [kind, id] of Object.entries(packages)) {
          states[kind] = await page.getByTestId(`package-status-${id}`).getAttribute('data-status');
          const message = await page.getByTestId(`package-progress-message-${id}`).innerText({ timeout: 200 }).catch(() => '');
          const progress = await page.getByTestId(`package-progress-${id}`).getAttribute('data-value', { timeout: 200 }).catch(() => null);
          const line = `${states[kind]}${progress !== null ? ` ${progress}%` : ''}${message ? ` "${message}"` : ''}`;
          if (message) messages.add(message);
          if (line !== last[kind]) log(`${kind} package #${id}: ${line}`);
          last[kind] = line;
          if (states[kind] === 'running' && !shotBuilding) {
            shotBuilding = true;
            await screenshot(page, 'packages-building', { fullPage: true });
          }
        }
        const done = Object.values(states).every((status) => ['succeeded', 'failed', 'cancelled'].includes(status));
        if (done) {
          const failed = Object.entries(states).filter(([, status]) => status !== 'succeeded');
          if (failed.length) {
            const [kind] = failed[0];
            const error = await page.getByTestId(`package-error-${packages[kind]}`).innerText().catch(() => '(no error shown)');
            fail(`the ${kind} package ended ${states[kind]}: ${error}`);
          }
          break;
        }
        if (Date.now() > deadline) fail(`builds still ${JSON.stringify(states)} after ${buildTimeoutMs / 1000}s (is a worker running?)`);
        await page.waitForTimeout(400);
      }
      summary.progress_messages = [...messages];
      log(`${messages.size} distinct progress messages seen while building`);
    });

    await step("the device SDK's compression report", async () => {
      const report = page.getByTestId(`compression-report-${packages.device}`);
      await report.waitFor();
      const fp32 = await page.getByTestId(`compression-fp32-${packages.device}`).innerText();
      const int8 = await page.getByTestId(`compression-int8-${packages.device}`).innerText();
      const agreement = await page.getByTestId(`compression-agreement-${packages.device}`).innerText();
      await report.scrollIntoViewIfNeeded();
      await screenshot(page, 'packages-built', { fullPage: true });
      log(`compression: ${fp32.replace(/\s+/g, ' ')} | ${int8.replace(/\s+/g, ' ')} | ${agreement}`);
      summary.compression = { fp32, int8, agreement };
    });

    await step('download both archives', async () => {
      summary.downloads = {};
      for (const [kind, id] of Object.entries(packages)) {
        const link = page.getByTestId(`package-download-${id}`);
        const href = await link.getAttribute('href');
        if (href !== `/api/v1/packages/${id}/download/`) fail(`the ${kind} download links to ${href}`);
        const downloading = page.waitForEvent('download', { timeout: 60_000 });
        await link.click();
        const download = await downloading;
        const failure = await download.failure();
        if (failure) fail(`the ${kind} download failed: ${failure}`);
        const file = path.join(artifacts, `${kind}.zip`);
        await download.saveAs(file);
        const { size } = await stat(file);
        log(`${kind} package saved as ${file} (${download.suggestedFilename()}, ${size} bytes)`);
        summary.downloads[kind] = { file, name: download.suggestedFilename(), size };
      }
    });

    await step("the project's Deployments tab lists the deployment and the packages", async () => {
      await page.goto(`${baseUrl}/projects/${projectId}/deployments`, { waitUntil: 'domcontentloaded' });
      await page.getByTestId(`deployment-row-${deploymentId}`).waitFor();
      for (const id of Object.values(packages)) await page.getByTestId(`package-row-${id}`).waitFor();
      await screenshot(page, 'project-deployments', { fullPage: true });
    });

    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
    await writeFile(path.join(artifacts, 'deploy.json'), JSON.stringify(summary, null, 2));
    log(`PASSED: deployment #${deploymentId}, answer "${answer.predictions[0].top_k[0].label}", packages ${JSON.stringify(packages)}`);
    await browser.close();
    return 0;
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
    await browser.close().catch(() => {});
    throw error;
  }
}

process.on('unhandledRejection', () => {});

run(main);
