import { describe, expect, it } from 'vitest';
import { expiryInDays } from './apiKeys';
import { absolutePredictUrl } from './deployments';
import { jobProgress, readCompressionReport } from './packages';
import { predictSnippet } from './snippets';
import { usageRows } from './usage';

describe('deploy helpers', () => {
  it('makes the predict URL absolute, keeping an absolute one', () => {
    expect(absolutePredictUrl({ id: 4, predict_url: '/api/v1/deployments/4/predict/' }, 'http://host:8000')).toBe(
      'http://host:8000/api/v1/deployments/4/predict/',
    );
    expect(absolutePredictUrl({ id: 4, predict_url: 'https://api.example.com/p/' }, 'http://host:8000')).toBe('https://api.example.com/p/');
  });

  it('writes snippets with the real endpoint, the key from the environment and the request formats', () => {
    const options = { predictUrl: 'http://h/api/v1/deployments/7/predict/', deploymentId: 7, baseUrl: 'http://h' };
    const curl = predictSnippet('curl', options);
    expect(curl).toContain('curl -X POST "http://h/api/v1/deployments/7/predict/"');
    expect(curl).toContain('Authorization: Bearer $SAMPAN_DEPLOYMENT_KEY');
    expect(curl).toContain('-F "file=@digit.png"');
    expect(curl).toContain('\\"instances\\"');
    const python = predictSnippet('python', options);
    expect(python).toContain('from sampan import Client');
    expect(python).toContain('client = Client("http://h")');
    expect(python).toContain('deployment = client.deployments.get(7)');
    expect(python).toContain('answer = deployment.predict("digit.png", top_k=5)');
    const js = predictSnippet('javascript', options);
    expect(js).toContain("fetch('http://h/api/v1/deployments/7/predict/'");
    expect(js).toContain("form.append('file', file)");
  });

  it('fills the buckets without calls so the time axis stays even', () => {
    const now = new Date('2026-11-29T10:30:30Z');
    const rows = usageRows(
      {
        bucket_seconds: 60,
        series: [{ t: '2026-11-29T10:28:00Z', calls: 3, errors: 1, p50_ms: 0.5, p95_ms: 0.9, p99_ms: 1.2 }],
      },
      '1h',
      now,
    );
    expect(rows).toHaveLength(60);
    expect(rows.reduce((sum, row) => sum + row.calls, 0)).toBe(3);
    expect(rows[rows.length - 3]).toMatchObject({ calls: 3, errors: 1, p50: 0.5, p99: 1.2 });
    expect(rows[rows.length - 1]).toMatchObject({ calls: 0, errors: 0, p50: null });
  });

  it("reads a device SDK's compression report, and nothing from a server package", () => {
    const archive = { path: '/tmp/p.zip', size_bytes: 1, sha256: 'x', test_vectors: 3, files: [] };
    const manifest = { format: 'f', sampan_version: '0', template: 't', model_version: { template: 't' } };
    const model = { file: 'model.onnx', ir_version: 8, opset: { 'ai.onnx': 17 }, producer: 'pytorch', inputs: [], outputs: [] };
    expect(
      readCompressionReport({
        kind: 'device',
        version: 1,
        ...archive,
        manifest,
        models: { fp32: model },
        compression: {
          format: 'sampan.compression_report/1',
          test_images: 40,
          fp32: { file: 'model.fp32.onnx', bytes: 400_000, accuracy: 0.95 },
          int8: { file: 'model.int8.onnx', bytes: 120_000, accuracy: 0.925 },
          top1_agreement: 0.975,
          quantization: { calibration_images: 300 },
        },
      }),
    ).toEqual({
      fp32: { size_bytes: 400_000, accuracy: 0.95, map50: null },
      int8: { size_bytes: 120_000, accuracy: 0.925, map50: null },
      agreement: 0.975,
      samples: 40,
      calibrationImages: 300,
      detection: null,
    });
    // a detector's: mAP@.5 of each model, the drop, and box agreement in place of top-1 agreement
    expect(
      readCompressionReport({
        kind: 'device',
        version: 1,
        ...archive,
        manifest,
        models: { fp32: model },
        compression: {
          format: 'sampan.compression_report/1',
          task: 'detection',
          test_images: 30,
          fp32: { file: 'model.fp32.onnx', bytes: 800_000, map50: 0.91 },
          int8: { file: 'model.int8.onnx', bytes: 240_000, map50: 0.9 },
          map50_drop: 0.01,
          box_agreement: 0.97,
        },
      }),
    ).toEqual({
      fp32: { size_bytes: 800_000, accuracy: null, map50: 0.91 },
      int8: { size_bytes: 240_000, accuracy: null, map50: 0.9 },
      agreement: 0.97,
      samples: 30,
      calibrationImages: null,
      detection: { map50Drop: 0.01, boxAgreement: 0.97 },
    });
    // a text or tabular SDK whose model could not be quantized
    expect(
      readCompressionReport({
        kind: 'device',
        version: 1,
        ...archive,
        manifest,
        models: { fp32: model },
        compression: { format: 'sampan.compression_report/1', test_instances: 9, fp32: { file: 'model.fp32.onnx', bytes: 10 }, int8: null, int8_note: 'no int8' },
      }),
    ).toEqual({
      fp32: { size_bytes: 10, accuracy: null, map50: null },
      int8: { size_bytes: null, accuracy: null, map50: null },
      agreement: null,
      samples: null,
      calibrationImages: null,
      detection: null,
    });
    expect(readCompressionReport({ kind: 'server', version: 1, ...archive, manifest, model, requirements: [] })).toBeNull();
    expect(readCompressionReport(null)).toBeNull();
  });

  it('reads a job progress as a percent', () => {
    expect(jobProgress({ step: 1, total: 4, message: 'quantizing' })).toEqual({ percent: 25, message: 'quantizing' });
    expect(jobProgress({ fraction: 2 })).toEqual({ percent: 100, message: '' });
    expect(jobProgress(null)).toEqual({ percent: null, message: '' });
  });

  it('computes key expiry dates', () => {
    expect(expiryInDays(null)).toBeNull();
    expect(expiryInDays(30, new Date('2026-01-01T00:00:00Z'))).toBe('2026-01-31T00:00:00.000Z');
  });
});

describe('text and table deployments', () => {
  it('knows the input of each template', async () => {
    const { inputKindOf, parseRows } = await import('./predict');
    expect(inputKindOf('image_classification')).toBe('image');
    expect(inputKindOf('text_classification')).toBe('text');
    expect(inputKindOf('tabular_regression')).toBe('tabular');
    expect(inputKindOf(undefined)).toBe('image');
    expect(parseRows('{"a": 1}')).toEqual([{ a: 1 }]);
    expect(parseRows('[{"a": 1}, {"a": 2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(() => parseRows('[1]')).toThrow('must be a JSON object');
    expect(() => parseRows('[]')).toThrow('must be a JSON object');
    expect(() => parseRows('{a: 1')).toThrow('not valid JSON');
  });

  it('writes JSON snippets for text models, plain HTTP in Python', () => {
    const options = { predictUrl: 'http://h/api/v1/deployments/7/predict/', deploymentId: 7, baseUrl: 'http://h', kind: 'text' as const };
    expect(predictSnippet('curl', options)).toContain(`-d '{"instances": [{"text": "Return the square root of x."}], "top_k": 5}'`);
    expect(predictSnippet('python', options)).toContain('import requests');
    expect(predictSnippet('javascript', options)).toContain("'Content-Type': 'application/json'");
  });
});
