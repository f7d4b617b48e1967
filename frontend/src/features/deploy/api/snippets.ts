import type { ForecastContract } from '@/lib/forecasting';

/** Copy-paste client code for a deployment's prediction endpoint. */
export type SnippetLanguage = 'curl' | 'python' | 'javascript';

export const SNIPPET_LANGUAGES: { value: SnippetLanguage; label: string }[] = [
  { value: 'curl', label: 'curl' },
  // i18n-ignore: a product name
  { value: 'python', label: 'Python SDK' },
  { value: 'javascript', label: 'JavaScript' },
];

const KEY_ENV = 'SAMPAN_DEPLOYMENT_KEY';

const EXAMPLE_INSTANCE = { text: '{"text": "Return the square root of x."}', tabular: '{"column_a": 1.5, "column_b": "red"}' };

/** Text and table templates take JSON instances; the SDK's predict() sends images, so plain HTTP here. */
function jsonSnippet(language: SnippetLanguage, kind: 'text' | 'tabular', predictUrl: string, topK: number): string {
  const instance = EXAMPLE_INSTANCE[kind];
  switch (language) {
    case 'curl':
      return [
        `# export ${KEY_ENV}=spd_...   (a key of this deployment)`,
        `curl -X POST "${predictUrl}" \\`,
        `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
        '  -H "Content-Type: application/json" \\',
        `  -d '{"instances": [${instance}], "top_k": ${topK}}'`,
      ].join('\n');
    case 'python':
      return [
        'import os',
        '',
        'import requests',
        '',
        'answer = requests.post(',
        `    "${predictUrl}",`,
        `    headers={"Authorization": f"Bearer {os.environ['${KEY_ENV}']}"},`,
        `    json={"instances": [${instance}], "top_k": ${topK}},`,
        '    timeout=30,',
        ').json()',
        'print(answer["predictions"][0]["top_k"])',
      ].join('\n');
    case 'javascript':
      return [
        `const key = process.env.${KEY_ENV};`,
        `const response = await fetch('${predictUrl}', {`,
        "  method: 'POST',",
        "  headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },",
        `  body: JSON.stringify({ instances: [${instance}], top_k: ${topK} }),`,
        '});',
        'const answer = await response.json();',
        'if (!response.ok) throw new Error(answer.error.message);',
        'console.log(answer.predictions[0].top_k);',
      ].join('\n');
  }
}

/** A detector's request: an image plus `score_threshold` and `max_detections`; the answer's boxes. */
function detectionSnippet(language: SnippetLanguage, predictUrl: string, deploymentId: number, baseUrl: string): string {
  switch (language) {
    case 'curl':
      return [
        `# export ${KEY_ENV}=spd_...   (a key of this deployment)`,
        `curl -X POST "${predictUrl}" \\`,
        `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
        '  -F "file=@street.jpg" \\',
        '  -F "score_threshold=0.3" \\',
        '  -F "max_detections=100"',
        '# -> {"predictions": [{"boxes": [{"label", "index", "score", "x", "y", "width", "height"}, ...], "width", "height"}]}',
      ].join('\n');
    case 'python':
      return [
        '# pip install sampan',
        'from sampan import Client',
        '',
        `client = Client("${baseUrl}")  # your personal API token in SAMPAN_API_KEY`,
        `deployment = client.deployments.get(${deploymentId})`,
        `# the deployment key comes from ${KEY_ENV} (or pass key="spd_...")`,
        'answer = deployment.predict("street.jpg", score_threshold=0.3, max_detections=100)',
        'for box in answer.boxes:  # best score first, in the image\'s pixels',
        '    print(box["label"], round(box["score"], 3), box["x"], box["y"], box["width"], box["height"])',
      ].join('\n');
    case 'javascript':
      return [
        `const key = process.env.${KEY_ENV}; // in a browser: ask your backend, never ship the key`,
        'const form = new FormData();',
        "form.append('file', file); // a File or Blob, e.g. from <input type=\"file\">",
        "form.append('score_threshold', '0.3');",
        "form.append('max_detections', '100');",
        '',
        `const response = await fetch('${predictUrl}', {`,
        "  method: 'POST',",
        '  headers: { Authorization: `Bearer ${key}` },',
        '  body: form,',
        '});',
        'const answer = await response.json();',
        'if (!response.ok) throw new Error(answer.error.message);',
        'console.log(answer.predictions[0].boxes); // [{ label, index, score, x, y, width, height }, ...]',
      ].join('\n');
  }
}

/**
 * A forecaster's request: a series' recent history (timestamps and values; known covariates over
 * history and horizon when the model has them), the horizon and quantiles; the answer's mean and
 * quantiles per future timestamp. The Python SDK takes a pandas history and answers a DataFrame.
 */
function forecastSnippet(
  language: SnippetLanguage,
  predictUrl: string,
  deploymentId: number,
  baseUrl: string,
  contract: ForecastContract | null | undefined,
): string {
  const horizon = contract?.horizon ?? 12;
  const quantiles = contract && contract.quantiles.length >= 2 ? [contract.quantiles[0], contract.quantiles[contract.quantiles.length - 1]] : [0.1, 0.9];
  const known = contract?.known_covariates ?? [];
  const knownJson = known.length ? `, "known": {${known.map((name) => `"${name}": [/* history + ${horizon} future values */]`).join(', ')}}` : '';
  const instance = `{"id": "store-1", "timestamps": ["2024-01-01", "2024-01-02", "..."], "values": [112.0, 118.0, "..."]${knownJson}}`;
  const body = `{"instances": [${instance}], "horizon": ${horizon}, "quantiles": [${quantiles.join(', ')}]}`;
  const minHistory = contract ? `at least ${contract.min_history} points, ` : '';
  switch (language) {
    case 'curl':
      return [
        `# export ${KEY_ENV}=spd_...   (a key of this deployment)`,
        `# history: ${minHistory}regular at the model's frequency${contract ? ` (${contract.frequency})` : ''}, oldest first, no gaps`,
        `curl -X POST "${predictUrl}" \\`,
        `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
        '  -H "Content-Type: application/json" \\',
        `  -d '${body.replace(/"\.\.\."/g, '...')}'`,
        '# -> {"predictions": [{"id", "timestamps", "mean", "quantiles": {"0.1": [...], "0.9": [...]}}], ...}',
      ].join('\n');
    case 'python':
      return [
        '# pip install sampan pandas',
        'import pandas as pd',
        'from sampan import Client',
        '',
        `client = Client("${baseUrl}")  # your personal API token in SAMPAN_API_KEY`,
        `deployment = client.deployments.get(${deploymentId})`,
        `# the deployment key comes from ${KEY_ENV} (or pass key="spd_...")`,
        '# recent history, long format: id, timestamp, value (one row per observation)',
        'history = pd.read_csv("recent.csv")',
        ...(known.length ? [`# known covariates (${known.join(', ')}): columns of history, their future values in known_future=`] : []),
        `forecast = deployment.forecast(history, horizon=${horizon}, quantiles=[${quantiles.join(', ')}])`,
        `print(forecast)  # columns id, timestamp, mean, ${quantiles.map((q) => `q${q}`).join(', ')}`,
      ].join('\n');
    case 'javascript':
      return [
        `const key = process.env.${KEY_ENV}; // in a browser: ask your backend, never ship the key`,
        'const history = { id: \'store-1\', timestamps: [\'2024-01-01\', \'2024-01-02\' /* ... */], values: [112, 118 /* ... */] };',
        `const response = await fetch('${predictUrl}', {`,
        "  method: 'POST',",
        "  headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },",
        `  body: JSON.stringify({ instances: [history], horizon: ${horizon}, quantiles: [${quantiles.join(', ')}] }),`,
        '});',
        'const answer = await response.json();',
        '// a refused history names the series and the position: answer.error.details',
        'if (!response.ok) throw new Error(answer.error.message);',
        'const { timestamps, mean, quantiles } = answer.predictions[0];',
        'console.log(timestamps, mean, quantiles);',
      ].join('\n');
  }
}

export function predictSnippet(
  language: SnippetLanguage,
  {
    predictUrl,
    deploymentId,
    baseUrl,
    topK = 5,
    kind = 'image',
    detector = false,
    contract = null,
  }: {
    predictUrl: string;
    deploymentId: number;
    baseUrl: string;
    topK?: number;
    kind?: 'image' | 'text' | 'tabular' | 'forecast';
    detector?: boolean;
    /** A forecaster's contract (horizon, quantiles, covariates) for its example request. */
    contract?: ForecastContract | null;
  },
): string {
  if (detector) return detectionSnippet(language, predictUrl, deploymentId, baseUrl);
  if (kind === 'forecast') return forecastSnippet(language, predictUrl, deploymentId, baseUrl, contract);
  if (kind !== 'image') return jsonSnippet(language, kind, predictUrl, topK);
  switch (language) {
    case 'curl':
      return [
        `# export ${KEY_ENV}=spd_...   (a key of this deployment)`,
        `curl -X POST "${predictUrl}" \\`,
        `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
        `  -F "file=@digit.png" \\`,
        `  -F "top_k=${topK}"`,
        '',
        '# or JSON with base64 images (batches: several entries in "instances")',
        `curl -X POST "${predictUrl}" \\`,
        `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
        '  -H "Content-Type: application/json" \\',
        `  -d "{\\"instances\\": [{\\"image\\": \\"$(base64 -w0 digit.png)\\"}], \\"top_k\\": ${topK}}"`,
      ].join('\n');
    case 'python':
      return [
        '# pip install sampan',
        'from sampan import Client',
        '',
        `client = Client("${baseUrl}")  # your personal API token in SAMPAN_API_KEY`,
        `deployment = client.deployments.get(${deploymentId})`,
        `# the deployment key comes from ${KEY_ENV} (or pass key="spd_...")`,
        `answer = deployment.predict("digit.png", top_k=${topK})`,
        'print(answer.label, answer.score)',
        'for entry in answer.top_k:',
        '    print(entry["label"], round(entry["score"], 3))',
        '',
        '# many images, sent in batches of up to 32',
        'answers = deployment.predict_batch(["a.png", "b.png", "c.png"])',
      ].join('\n');
    case 'javascript':
      return [
        `const key = process.env.${KEY_ENV}; // in a browser: ask your backend, never ship the key`,
        'const form = new FormData();',
        "form.append('file', file); // a File or Blob, e.g. from <input type=\"file\">",
        `form.append('top_k', '${topK}');`,
        '',
        `const response = await fetch('${predictUrl}', {`,
        "  method: 'POST',",
        '  headers: { Authorization: `Bearer ${key}` },',
        '  body: form,',
        '});',
        'const answer = await response.json();',
        'if (!response.ok) throw new Error(answer.error.message);',
        'console.log(answer.predictions[0].top_k); // [{ label, index, score }, ...]',
      ].join('\n');
  }
}
