import type { BatchPrediction } from './api';

/** A finished batch as the API answers it (API.md §1), for component tests. */
export const BATCH: BatchPrediction = {
  id: 21,
  workspace: 1,
  project: 4,
  model_version: 12,
  model_version_name: 'V3',
  template: 'image_classification',
  deployment: null,
  job: 90,
  status: 'succeeded',
  progress: null,
  source: {
    kind: 'dataset_version',
    dataset_version: 5,
    dataset_version_name: 'digits v2',
    split: 'test',
    dataset: 3,
    dataset_name: 'digits',
    upload_name: '',
    upload_size: null,
  },
  params: { top_k: 3, formats: ['jsonl', 'csv'] },
  summary: {
    rows: 360,
    predicted: 358,
    errors: 2,
    error_examples: [
      { id: 77, name: 'broken.png', error: 'cannot identify image file' },
      { id: 78, name: 'empty.png', error: 'empty file' },
    ],
    seconds: 1.5,
    rows_per_s: 240,
    metrics: { samples: 360, accuracy: 0.9612, macro_f1: 0.95 },
  },
  files: [
    { format: 'jsonl', size_bytes: 40_960, sha256: 'a'.repeat(64), download_url: '/api/v1/batch-predictions/21/download/?format=jsonl' },
    { format: 'csv', size_bytes: 20_480, sha256: 'b'.repeat(64), download_url: '/api/v1/batch-predictions/21/download/?format=csv' },
  ],
  error: '',
  created_at: '2026-12-01T10:00:00Z',
  created_by: 'alice',
  finished_at: '2026-12-01T10:00:02Z',
};
