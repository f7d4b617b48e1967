/**
 * Detection reports as the workers write them (workers/contracts/annotations.py DetectionReport):
 * two classes of digit scenes, a short PR curve per class, a bad case with a false detection and a
 * missed object. Hand-made, numbers chosen to be told apart in the tests.
 */

import type { DetectionReport } from '../../api/detection';

export const DETECTION_VERSION = {
  id: 31,
  name: 'V1',
  number: 1,
  workspace: 1,
  project: 4,
  dataset: 3,
  dataset_version: 8,
  job: 42,
  template: 'object_detection',
  preset: 'fast',
  params: { preset: 'fast', model: 'det_small', epochs: 2 },
  code_version: '0.1.0+abc',
  classes: ['one', 'seven'],
  preprocessing: {},
  onnx_sha256: 'f00',
  metrics: { test: { map: 0.61, map50: 0.875 } },
  backbone: null,
  created_by: 'admin',
  created_at: '2026-12-04T10:00:00Z',
};

export const DETECTION_REPORT: DetectionReport = {
  kind: 'detection_report',
  version: 1,
  split: 'test',
  samples: 12,
  classes: ['one', 'seven'],
  map: 0.61,
  map50: 0.875,
  map75: 0.64,
  headline: { map: 0.61, map50: 0.875, map75: 0.64 },
  per_class: [
    { label: 'one', ap: 0.7, ap50: 0.95, ap75: 0.72, ground_truth: 14, pr_curve: { recall: [0, 0.5, 1], precision: [1, 1, 0.9] } },
    { label: 'seven', ap: 0.52, ap50: 0.8, ap75: 0.56, ground_truth: 9, pr_curve: { recall: [0, 0.5, 1], precision: [1, 0.8, -1] } },
  ],
  confusion_matrix: {
    labels: ['one', 'seven', 'background'],
    matrix: [
      [12, 1, 1],
      [0, 8, 1],
      [2, 1, 0],
    ],
  },
  score_threshold: 0.3,
  bad_cases: [
    {
      sample: 501,
      path: '/data/501.png',
      width: 64,
      height: 64,
      false_positives: 1,
      missed: 1,
      predicted: [{ label: 'seven', x: 4, y: 6, width: 20, height: 22, score: 0.64 }],
      truth: [
        { label: 'one', x: 5, y: 6, width: 18, height: 22 },
        { label: 'seven', x: 36, y: 30, width: 20, height: 24 },
      ],
    },
  ],
  model: { path: '/m.onnx', sha256: 'f00' },
};

/** A second version, better on "seven", worse on "one". */
export const DETECTION_VERSION_B = { ...DETECTION_VERSION, id: 32, name: 'V2', number: 2 };
export const DETECTION_REPORT_B: DetectionReport = {
  ...DETECTION_REPORT,
  map: 0.66,
  map50: 0.9,
  per_class: [
    { ...DETECTION_REPORT.per_class[0], ap: 0.65 },
    { ...DETECTION_REPORT.per_class[1], ap: 0.67 },
  ],
};
