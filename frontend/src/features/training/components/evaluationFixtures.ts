/**
 * Evaluation reports of each template, as the workers write them. The tabular ones are real: captured
 * from tests/templates_tabular's API training (diabetes regression and wine classification, fast
 * preset) on 2026-11-29, numbers rounded to 4 places, the largest errors cut to 3. The text one too:
 * tests/templates_text's docstring corpus (30 per class), fast preset. Typed by the generated client
 * (workers/contracts/evaluation.py), with the kind and version the reports carry since.
 */

import type { ClassificationReport, RegressionReport } from '../api/modelVersions';

const BASE = {
  number: 1,
  workspace: 1,
  project: 4,
  dataset: 3,
  dataset_version: 8,
  job: 42,
  backbone: null,
  onnx_sha256: 'f00',
  created_by: 'admin',
  created_at: '2026-11-29T10:00:00Z',
};

export const REGRESSION_VERSION = { ...BASE, id: 21, name: 'V1', "template": "tabular_regression", "preset": "fast", "params": {"seed": 0, "model": "gbdt", "epochs": 100, "preset": "fast", "dropout": 0.1, "batch_size": 64, "num_leaves": 15, "hidden_size": 128, "n_estimators": 100, "weight_decay": 0.0001, "learning_rate": 0.1, "min_child_samples": 10}, "classes": [], "preprocessing": {}, "metrics": {"test": {"r2": 0.5904, "mae": 35.6387, "rmse": 44.1939}}, "code_version": "0.1.0+6c085df332dd" };

export const REGRESSION_EVALUATION: RegressionReport = {
  "kind": "regression_report",
  "version": 1,
  "r2": 0.5904,
  "mae": 35.6387,
  "rmse": 44.1939,
  "model": {"path": "/srv/sampan/models/model.onnx", "sha256": "e430fc6c0c59ccea269c13c0a7c02cb42f96030401c5a80e7c4c6c184c04e4aa"},
  "split": "test",
  "samples": 44,
  "headline": {"r2": 0.5904, "mae": 35.6387, "rmse": 44.1939},
  "residuals": {
    "points": [
      {"actual": 151.0, "sample": 1, "predicted": 225.791},
      {"actual": 101.0, "sample": 11, "predicted": 102.2424},
      {"actual": 166.0, "sample": 17, "predicted": 200.401},
      {"actual": 265.0, "sample": 37, "predicted": 242.8882},
      {"actual": 100.0, "sample": 41, "predicted": 176.5184},
      {"actual": 182.0, "sample": 55, "predicted": 159.219},
      {"actual": 178.0, "sample": 70, "predicted": 103.5126},
      {"actual": 143.0, "sample": 81, "predicted": 176.4357},
      {"actual": 141.0, "sample": 86, "predicted": 126.8409},
      {"actual": 90.0, "sample": 95, "predicted": 124.1632},
      {"actual": 134.0, "sample": 107, "predicted": 117.5962},
      {"actual": 232.0, "sample": 109, "predicted": 274.4165},
      {"actual": 179.0, "sample": 119, "predicted": 185.9574},
      {"actual": 200.0, "sample": 121, "predicted": 81.6623},
      {"actual": 268.0, "sample": 130, "predicted": 238.5352},
      {"actual": 259.0, "sample": 146, "predicted": 226.8119},
      {"actual": 217.0, "sample": 162, "predicted": 249.9204},
      {"actual": 268.0, "sample": 169, "predicted": 216.079},
      {"actual": 295.0, "sample": 173, "predicted": 279.1641},
      {"actual": 151.0, "sample": 180, "predicted": 204.979},
      {"actual": 196.0, "sample": 203, "predicted": 217.3311},
      {"actual": 196.0, "sample": 207, "predicted": 147.4887},
      {"actual": 185.0, "sample": 220, "predicted": 147.8123},
      {"actual": 53.0, "sample": 230, "predicted": 61.616},
      {"actual": 246.0, "sample": 235, "predicted": 244.4704},
      {"actual": 124.0, "sample": 236, "predicted": 137.4584},
      {"actual": 72.0, "sample": 238, "predicted": 51.1344},
      {"actual": 71.0, "sample": 243, "predicted": 88.6675},
      {"actual": 89.0, "sample": 259, "predicted": 130.6214},
      {"actual": 145.0, "sample": 265, "predicted": 146.4416},
      {"actual": 45.0, "sample": 267, "predicted": 84.8328},
      {"actual": 182.0, "sample": 273, "predicted": 156.1126},
      {"actual": 85.0, "sample": 296, "predicted": 123.5349},
      {"actual": 172.0, "sample": 308, "predicted": 142.9889},
      {"actual": 142.0, "sample": 310, "predicted": 208.1231},
      {"actual": 109.0, "sample": 319, "predicted": 198.5133},
      {"actual": 95.0, "sample": 340, "predicted": 172.9976},
      {"actual": 88.0, "sample": 348, "predicted": 94.6386},
      {"actual": 321.0, "sample": 363, "predicted": 311.9713},
      {"actual": 206.0, "sample": 366, "predicted": 144.4552},
      {"actual": 140.0, "sample": 375, "predicted": 156.1482},
      {"actual": 217.0, "sample": 376, "predicted": 206.5382},
      {"actual": 40.0, "sample": 380, "predicted": 101.6673},
      {"actual": 136.0, "sample": 412, "predicted": 101.0329},
    ],
    "histogram": {
      "edges": [
        -118.3377,
        -107.9451,
        -97.5526,
        -87.16,
        -76.7675,
        -66.3749,
        -55.9824,
        -45.5899,
        -35.1973,
        -24.8048,
        -14.4122,
        -4.0197,
        6.3729,
        16.7654,
        27.158,
        37.5505,
        47.9431,
        58.3356,
        68.7282,
        79.1207,
        89.5133,
      ],
      "counts": [1, 0, 0, 0, 1, 1, 2, 1, 5, 5, 3, 3, 5, 2, 4, 4, 1, 2, 3, 1],
    },
  },
  "largest_errors": [
    {
      "actual": 200.0,
      "sample": 121,
      "values": {
        "bp": 0.0115,
        "s1": -0.0373,
        "s2": -0.0185,
        "s3": -0.0176,
        "s4": -0.0026,
        "s5": -0.0398,
        "s6": -0.0218,
        "age": -0.0491,
        "bmi": 0.0046,
        "sex": -0.0446,
      },
      "predicted": 81.6623,
    },
    {
      "actual": 109.0,
      "sample": 319,
      "values": {
        "bp": 0.0253,
        "s1": 0.0301,
        "s2": 0.0087,
        "s3": 0.0634,
        "s4": -0.0395,
        "s5": 0.0094,
        "s6": 0.0321,
        "age": 0.0889,
        "bmi": 0.0067,
        "sex": -0.0446,
      },
      "predicted": 198.5133,
    },
    {
      "actual": 95.0,
      "sample": 340,
      "values": {
        "bp": -0.0504,
        "s1": 0.0755,
        "s2": 0.0566,
        "s3": 0.0339,
        "s4": -0.0026,
        "s5": 0.0434,
        "s6": 0.0155,
        "age": 0.0272,
        "bmi": -0.0073,
        "sex": -0.0446,
      },
      "predicted": 172.9976,
    },
  ],
  "feature_importance": [
    {"std": 2.1793, "feature": "s5", "importance": 20.4406},
    {"std": 2.717, "feature": "bmi", "importance": 13.4514},
    {"std": 1.6057, "feature": "s6", "importance": 3.263},
    {"std": 1.3319, "feature": "bp", "importance": 1.9061},
    {"std": 1.9761, "feature": "s2", "importance": 1.6826},
    {"std": 1.4121, "feature": "sex", "importance": 1.6075},
    {"std": 2.261, "feature": "s3", "importance": 1.3002},
    {"std": 0.6658, "feature": "s1", "importance": 1.1606},
    {"std": 0.881, "feature": "age", "importance": 0.7794},
    {"std": 0.5386, "feature": "s4", "importance": -0.0048},
  ],
};

export const TABULAR_CLASSIFICATION_VERSION = { ...BASE, id: 22, name: 'V2', number: 2, "template": "tabular_classification", "preset": "fast", "params": {"seed": 0, "model": "gbdt", "epochs": 100, "preset": "fast", "dropout": 0.1, "batch_size": 64, "num_leaves": 15, "hidden_size": 128, "n_estimators": 100, "weight_decay": 0.0001, "learning_rate": 0.1, "min_child_samples": 10}, "classes": ["class_0", "class_1", "class_2"], "preprocessing": {}, "metrics": {"test": {"accuracy": 0.9444, "macro_f1": 0.9441, "weighted_f1": 0.9448, "top_k_accuracy": {"1": 0.9444, "3": 1.0}}}, "code_version": "0.1.0+6c085df332dd" };

export const TABULAR_CLASSIFICATION_EVALUATION: ClassificationReport = {
  "kind": "classification_report",
  "version": 1,
  "macro": {"f1": 0.9441, "recall": 0.9524, "precision": 0.9444},
  "model": {"path": "/srv/sampan/models/model.onnx", "sha256": "8ce6c81243318cfe163751ef42c0135a67d342d5736d4516e3f303668291cce6"},
  "split": "test",
  "classes": ["class_0", "class_1", "class_2"],
  "samples": 18,
  "accuracy": 0.9444,
  "headline": {"accuracy": 0.9444, "macro_f1": 0.9441, "weighted_f1": 0.9448, "top_k_accuracy": {"1": 0.9444, "3": 1.0}},
  "weighted": {"f1": 0.9448, "recall": 0.9444, "precision": 0.9537},
  "per_class": [
    {"f1": 1.0, "class": "class_0", "index": 0, "recall": 1.0, "support": 6, "precision": 1.0},
    {"f1": 0.9231, "class": "class_1", "index": 1, "recall": 0.8571, "support": 7, "precision": 1.0},
    {"f1": 0.9091, "class": "class_2", "index": 2, "recall": 1.0, "support": 5, "precision": 0.8333},
  ],
  "top_k_accuracy": {"1": 0.9444, "3": 1.0},
  "confusion_matrix": {
    "counts": [[6, 0, 0], [0, 6, 1], [0, 0, 5]],
    "samples": [[[453, 454, 483, 489, 499, 500], [], []], [[], [544, 547, 550, 560, 561, 565], [504]], [[], [], [583, 595, 602, 609, 613]]],
  },
  "feature_importance": [
    {"std": 0.0454, "feature": "color_intensity", "importance": 0.1667},
    {"std": 0.0524, "feature": "flavanoids", "importance": 0.1481},
    {"std": 0.0262, "feature": "proline", "importance": 0.1481},
    {"std": 0.0262, "feature": "alcohol", "importance": 0.0185},
    {"std": 0.0, "feature": "malic_acid", "importance": 0.0},
    {"std": 0.0, "feature": "ash", "importance": 0.0},
    {"std": 0.0, "feature": "alcalinity_of_ash", "importance": 0.0},
    {"std": 0.0, "feature": "magnesium", "importance": 0.0},
    {"std": 0.0, "feature": "total_phenols", "importance": 0.0},
    {"std": 0.0, "feature": "nonflavanoid_phenols", "importance": 0.0},
    {"std": 0.0, "feature": "proanthocyanins", "importance": 0.0},
    {"std": 0.0, "feature": "hue", "importance": 0.0},
    {"std": 0.0, "feature": "od280/od315_of_diluted_wines", "importance": -0.0556},
  ],
  "most_confident_mistakes": [
    {
      "true": 1,
      "index": 6,
      "sample": 504,
      "values": {
        "ash": 2.02,
        "hue": 0.98,
        "alcohol": 12.64,
        "proline": 450.0,
        "magnesium": 100.0,
        "flavanoids": 1.41,
        "malic_acid": 1.36,
        "total_phenols": 2.02,
        "color_intensity": 5.75,
        "proanthocyanins": 0.62,
        "alcalinity_of_ash": 16.8,
        "nonflavanoid_phenols": 0.53,
        "od280/od315_of_diluted_wines": 1.59,
      },
      "predicted": 2,
      "confidence": 0.9447,
      "true_class": "class_1",
      "predicted_class": "class_2",
    },
  ],
};

export const TEXT_VERSION = { ...BASE, id: 23, name: 'V3', number: 3, "template": "text_classification", "preset": "fast", "params": {"seed": 0, "model": "bag_of_embeddings", "epochs": 40, "preset": "fast", "dropout": 0.1, "batch_size": 32, "max_length": 128, "weight_decay": 0.0001, "embedding_dim": 64, "learning_rate": 0.01, "finetune_layers": 2}, "classes": ["files", "network", "numbers", "text"], "code_version": "0.1.0+c9a5f83ae61a", "preprocessing": {}, "metrics": {"test": {"accuracy": 0.8333, "macro_f1": 0.8231, "weighted_f1": 0.8231, "top_k_accuracy": {"1": 0.8333, "3": 0.9583}}} };

export const TEXT_EVALUATION: ClassificationReport = {
  "kind": "classification_report",
  "version": 1,
  "macro": {"f1": 0.8231, "recall": 0.8333, "precision": 0.8304},
  "model": {"path": "/srv/sampan/models/model.onnx", "sha256": "d5cb4f26105c35ec41810cc67425d003d4f50d6b7be190beddafdb4b74a3eacb"},
  "split": "test",
  "classes": ["files", "network", "numbers", "text"],
  "samples": 24,
  "accuracy": 0.8333,
  "weighted": {"f1": 0.8231, "recall": 0.8333, "precision": 0.8304},
  "per_class": [
    {"f1": 0.9231, "class": "files", "index": 0, "recall": 1.0, "support": 6, "precision": 0.8571},
    {"f1": 0.7692, "class": "network", "index": 1, "recall": 0.8333, "support": 6, "precision": 0.7143},
    {"f1": 1.0, "class": "numbers", "index": 2, "recall": 1.0, "support": 6, "precision": 1.0},
    {"f1": 0.6, "class": "text", "index": 3, "recall": 0.5, "support": 6, "precision": 0.75},
  ],
  "misclassified": 4,
  "top_k_accuracy": {"1": 0.8333, "3": 0.9583},
  "confusion_matrix": {
    "counts": [[6, 0, 0, 0], [0, 5, 0, 1], [0, 0, 6, 0], [1, 2, 0, 3]],
    "samples": [
      [[21, 44, 66, 86, 97, 102], [], [], []],
      [[], [11, 32, 61, 65, 71], [], [49]],
      [[], [], [1, 8, 26, 56, 76, 95], []],
      [[55], [2, 39], [], [15, 20, 113]],
    ],
  },
  "most_confident_mistakes": [
    {
      "text": "Implements the standard rules for accepting and returning cookies.",
      "true": 1,
      "index": 11,
      "sample": 49,
      "predicted": 3,
      "confidence": 0.8828,
      "true_class": "network",
      "predicted_class": "text",
    },
    {
      "text": "Return True for ignorable character: iff `ch` is a space or tab.",
      "true": 3,
      "index": 1,
      "sample": 2,
      "predicted": 1,
      "confidence": 0.4088,
      "true_class": "text",
      "predicted_class": "network",
    },
    {
      "text": "Encodes the object input and returns a tuple (output object, length consumed).",
      "true": 3,
      "index": 9,
      "sample": 39,
      "predicted": 1,
      "confidence": 0.3676,
      "true_class": "text",
      "predicted_class": "network",
    },
    {
      "text": "Scan through string looking for a match, and return a corresponding match object instance.",
      "true": 3,
      "index": 12,
      "sample": 55,
      "predicted": 0,
      "confidence": 0.3326,
      "true_class": "text",
      "predicted_class": "files",
    },
  ],
};

/**
 * Digits as 64x64 images with Chinese class names in the user's order (零 first, as the labels were
 * created), which is not their code-point order (一 七 三 九 二 五 八 六 四 零). 20 test images per
 * class; 二 is mistaken for 三 twice and 零 for 六 once. Every view of the report keeps this order.
 */
export const DIGIT_CLASSES = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

export const DIGITS_VERSION = {
  ...BASE,
  id: 31,
  name: 'V1',
  template: 'image_classification',
  preset: 'fast',
  params: { preset: 'fast', model: 'cnn_small', epochs: 8, image_size: 64 },
  classes: DIGIT_CLASSES,
  preprocessing: {},
  metrics: { test: { accuracy: 0.985 } },
  code_version: '0.1.0+6c085df332dd',
};

const DIGIT_COUNTS: number[][] = DIGIT_CLASSES.map((_, row) => DIGIT_CLASSES.map((__, column) => (row === column ? 20 : 0)));
DIGIT_COUNTS[2][2] = 18;
DIGIT_COUNTS[2][3] = 2;
DIGIT_COUNTS[0][0] = 19;
DIGIT_COUNTS[0][6] = 1;
const digitSamples = (row: number, column: number) => Array.from({ length: DIGIT_COUNTS[row][column] }, (_, i) => 1000 + row * 100 + column * 10 + i);

export const DIGITS_EVALUATION: ClassificationReport = {
  kind: 'classification_report',
  version: 1,
  split: 'test',
  samples: 200,
  classes: DIGIT_CLASSES,
  accuracy: 0.985,
  top_k_accuracy: { '1': 0.985, '3': 1.0, '5': 1.0 },
  macro: { precision: 0.9857, recall: 0.985, f1: 0.985 },
  weighted: { precision: 0.9857, recall: 0.985, f1: 0.985 },
  per_class: DIGIT_CLASSES.map((name, index) => {
    const recall = DIGIT_COUNTS[index][index] / 20;
    const predicted = DIGIT_COUNTS.reduce((sum, row) => sum + row[index], 0);
    const precision = DIGIT_COUNTS[index][index] / predicted;
    return { class: name, index, precision, recall, f1: (2 * precision * recall) / (precision + recall), support: 20 };
  }),
  confusion_matrix: {
    counts: DIGIT_COUNTS,
    samples: DIGIT_COUNTS.map((row, r) => row.map((_, c) => digitSamples(r, c))),
  },
  most_confident_mistakes: [
    { sample: 1230, index: 41, path: '/d/二/7.jpg', true: 2, true_class: '二', predicted: 3, predicted_class: '三', confidence: 0.91 },
    { sample: 1060, index: 3, path: '/d/零/2.jpg', true: 0, true_class: '零', predicted: 6, predicted_class: '六', confidence: 0.77 },
    { sample: 1231, index: 44, path: '/d/二/9.jpg', true: 2, true_class: '二', predicted: 3, predicted_class: '三', confidence: 0.52 },
  ],
  model: { path: '/srv/sampan/models/model.onnx', sha256: 'a1' },
};
