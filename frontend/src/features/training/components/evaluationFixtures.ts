/**
 * Evaluation reports of each template, as the workers write them. The tabular ones are real: captured
 * from tests/templates_tabular's API training (diabetes regression and wine classification, fast
 * preset) on 2026-11-29, numbers rounded to 4 places, the largest errors cut to 3. The text one too:
 * tests/templates_text's docstring corpus (30 per class), fast preset. Typed by the generated client
 * (workers/contracts/evaluation.py), with the kind and version the reports carry since.
 */

import type { ForecastComparison, ForecastReport } from '@/lib/forecasting';
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

/**
 * A forecaster's report (workers/contracts/forecasting.py ForecastReport), not yet captured from the
 * worker: computed with statsmodels on its bundled macrodata (quarterly, six series, horizon 8, the
 * last 8 quarters 2007Q4-2009Q3 held out), ETS with a damped additive trend as the chosen model and
 * its 80% prediction interval, seasonal naive (season 4), naive and theta as baselines, two
 * validation windows before the test window; plots hold the last 24 quarters of history.
 */
export const FORECAST_VERSION = { ...BASE, id: 31, name: 'V1', template: 'time_series_forecasting', preset: 'fast', params: { preset: 'fast', models: 'statistical' }, classes: [], preprocessing: {}, metrics: { test: { mase: 2.3633, smape: 9.6687, rmse: 238.8302, coverage: 0.2292 } }, code_version: '0.1.0+6c085df332dd' };
export const FORECAST_VERSION_B = { ...FORECAST_VERSION, id: 32, number: 2, name: 'V2' };

export const FORECAST_EVALUATION: ForecastReport = {
  "kind": "forecast_report",
  "version": 1,
  "split": "test",
  "horizon": 8,
  "frequency": "QS",
  "season_length": 4,
  "interval_level": 0.8,
  "model_name": "ets",
  "series_count": 6,
  "observations": 48,
  "headline": {"mase": 2.3633, "smape": 9.6687, "rmse": 238.8302, "coverage": 0.2292, "width": 0.1218},
  "seasonal_naive": {"mase": 2.5068, "smape": 11.7768, "rmse": 143.7448, "coverage": null, "width": null},
  "skill": 0.0572,
  "baselines": [
    {
      "model": "ets",
      "test": {"mase": 2.3633, "smape": 9.6687, "rmse": 238.8302, "coverage": 0.2292, "width": 0.1218},
      "validation": {"mase": 0.5476, "smape": 1.6329, "rmse": 24.689, "coverage": 0.7708, "width": 0.1584},
      "chosen_weight": 1.0
    },
    {
      "model": "theta",
      "test": {"mase": 2.2749, "smape": 10.8099, "rmse": 180.3715, "coverage": null, "width": null},
      "validation": null,
      "chosen_weight": 0.0
    },
    {
      "model": "naive",
      "test": {"mase": 2.2061, "smape": 10.6196, "rmse": 143.0918, "coverage": null, "width": null},
      "validation": null,
      "chosen_weight": 0.0
    },
    {
      "model": "seasonal_naive",
      "test": {"mase": 2.5068, "smape": 11.7768, "rmse": 143.7448, "coverage": null, "width": null},
      "validation": {"mase": 1.5849, "smape": 4.8662, "rmse": 168.1857, "coverage": null, "width": null},
      "chosen_weight": 0.0
    }
  ],
  "per_series": [
    {"series": "realinv", "mase": 4.4591, "smape": 18.0612, "rmse": 429.0261, "coverage": 0.125, "width": 0.1356, "seasonal_naive_mase": 4.3686, "skill": -0.0207},
    {"series": "unemp", "mase": 2.4752, "smape": 25.8803, "rmse": 2.3899, "coverage": 0.625, "width": 0.4474, "seasonal_naive_mase": 3.2852, "skill": 0.2466},
    {"series": "realgovt", "mase": 2.378, "smape": 5.7486, "rmse": 63.2269, "coverage": 0.125, "width": 0.0706, "seasonal_naive_mase": 3.7441, "skill": 0.3649},
    {"series": "realgdp", "mase": 2.1017, "smape": 3.605, "rmse": 605.8851, "coverage": 0.25, "width": 0.0312, "seasonal_naive_mase": 0.9246, "skill": -1.2733},
    {"series": "realcons", "mase": 1.7624, "smape": 2.9916, "rmse": 328.4202, "coverage": 0.125, "width": 0.0241, "seasonal_naive_mase": 0.5044, "skill": -2.4941},
    {"series": "cpi", "mase": 1.0031, "smape": 1.7257, "rmse": 4.0332, "coverage": 0.125, "width": 0.0217, "seasonal_naive_mase": 2.2141, "skill": 0.5469}
  ],
  "by_horizon": [
    {"step": 1, "mase": 0.2783, "smape": 0.844, "rmse": 20.4078, "seasonal_naive_mase": 1.2342},
    {"step": 2, "mase": 0.602, "smape": 1.6864, "rmse": 67.8188, "seasonal_naive_mase": 1.2767},
    {"step": 3, "mase": 1.0924, "smape": 3.5947, "rmse": 98.6956, "seasonal_naive_mase": 1.6722},
    {"step": 4, "mase": 1.5915, "smape": 6.028, "rmse": 182.1813, "seasonal_naive_mase": 1.6247},
    {"step": 5, "mase": 2.6032, "smape": 10.238, "rmse": 307.069, "seasonal_naive_mase": 2.5187},
    {"step": 6, "mase": 3.7088, "smape": 15.8074, "rmse": 460.3117, "seasonal_naive_mase": 3.389},
    {"step": 7, "mase": 4.4713, "smape": 19.3735, "rmse": 522.4351, "seasonal_naive_mase": 4.1718},
    {"step": 8, "mase": 4.5586, "smape": 19.7779, "rmse": 506.9413, "seasonal_naive_mase": 4.1673}
  ],
  "backtest": [
    {
      "index": 0,
      "role": "validation",
      "cutoff": "2003-07-01",
      "metrics": {"mase": 0.7586, "smape": 3.3673, "rmse": 44.0873, "coverage": 0.7292, "width": 0.1452},
      "seasonal_naive": {"mase": 2.3797, "smape": 7.1909, "rmse": 239.4026, "coverage": null, "width": null}
    },
    {
      "index": 1,
      "role": "validation",
      "cutoff": "2005-07-01",
      "metrics": {"mase": 0.5476, "smape": 1.6329, "rmse": 24.689, "coverage": 0.7708, "width": 0.1584},
      "seasonal_naive": {"mase": 1.5849, "smape": 4.8662, "rmse": 168.1857, "coverage": null, "width": null}
    },
    {
      "index": 2,
      "role": "test",
      "cutoff": "2007-07-01",
      "metrics": {"mase": 2.3633, "smape": 9.6687, "rmse": 238.8302, "coverage": 0.2292, "width": 0.1218},
      "seasonal_naive": {"mase": 2.5068, "smape": 11.7768, "rmse": 143.7448, "coverage": null, "width": null}
    }
  ],
  "plots": [
    {
      "series": "realgdp",
      "timestamps": ["2001-10-01", "2002-01-01", "2002-04-01", "2002-07-01", "2002-10-01", "2003-01-01", "2003-04-01", "2003-07-01", "2003-10-01", "2004-01-01", "2004-04-01", "2004-07-01", "2004-10-01", "2005-01-01", "2005-04-01", "2005-07-01", "2005-10-01", "2006-01-01", "2006-04-01", "2006-07-01", "2006-10-01", "2007-01-01", "2007-04-01", "2007-07-01", "2007-10-01", "2008-01-01", "2008-04-01", "2008-07-01", "2008-10-01", "2009-01-01", "2009-04-01", "2009-07-01"],
      "actual": [11380.128, 11477.868, 11538.77, 11596.43, 11598.824, 11645.819, 11738.706, 11935.461, 12042.817, 12127.623, 12213.818, 12303.533, 12410.282, 12534.113, 12587.535, 12683.153, 12748.699, 12915.938, 12962.462, 12965.916, 13060.679, 13099.901, 13203.977, 13321.109, 13391.249, 13366.865, 13415.266, 13324.6, 13141.92, 12925.41, 12901.504, 12990.341],
      "forecast_start": 24,
      "mean": [13401.2854, 13479.863, 13556.8689, 13632.3348, 13706.2913, 13778.7687, 13849.7966, 13919.4039],
      "lower": [13335.8441, 13375.2514, 13413.8853, 13450.0827, 13483.4433, 13513.8967, 13541.4872, 13566.302],
      "upper": [13466.7268, 13584.4745, 13699.8525, 13814.5869, 13929.1394, 14043.6407, 14158.106, 14272.5058],
      "seasonal_naive": [13060.679, 13099.901, 13203.977, 13321.109, 13060.679, 13099.901, 13203.977, 13321.109]
    },
    {
      "series": "realcons",
      "timestamps": ["2001-10-01", "2002-01-01", "2002-04-01", "2002-07-01", "2002-10-01", "2003-01-01", "2003-04-01", "2003-07-01", "2003-10-01", "2004-01-01", "2004-04-01", "2004-07-01", "2004-10-01", "2005-01-01", "2005-04-01", "2005-07-01", "2005-10-01", "2006-01-01", "2006-04-01", "2006-07-01", "2006-10-01", "2007-01-01", "2007-04-01", "2007-07-01", "2007-10-01", "2008-01-01", "2008-04-01", "2008-07-01", "2008-10-01", "2009-01-01", "2009-04-01", "2009-07-01"],
      "actual": [7930.0, 7957.3, 7997.8, 8052.0, 8080.6, 8122.3, 8197.8, 8312.1, 8358.0, 8437.6, 8483.2, 8555.8, 8654.2, 8719.0, 8802.9, 8865.6, 8888.5, 8986.6, 9035.0, 9090.7, 9181.6, 9265.1, 9291.5, 9335.6, 9363.6, 9349.6, 9351.0, 9267.7, 9195.3, 9209.2, 9189.0, 9256.0],
      "forecast_start": 24,
      "mean": [9387.3907, 9437.1187, 9485.8521, 9533.6109, 9580.4144, 9626.2819, 9671.2321, 9715.2832],
      "lower": [9353.0653, 9382.83, 9410.7025, 9436.3968, 9459.9267, 9481.3754, 9500.8421, 9518.4263],
      "upper": [9421.7162, 9491.4074, 9561.0018, 9630.8249, 9700.9022, 9771.1885, 9841.6221, 9912.1402],
      "seasonal_naive": [9181.6, 9265.1, 9291.5, 9335.6, 9181.6, 9265.1, 9291.5, 9335.6]
    },
    {
      "series": "realinv",
      "timestamps": ["2001-10-01", "2002-01-01", "2002-04-01", "2002-07-01", "2002-10-01", "2003-01-01", "2003-04-01", "2003-07-01", "2003-10-01", "2004-01-01", "2004-04-01", "2004-07-01", "2004-10-01", "2005-01-01", "2005-04-01", "2005-07-01", "2005-10-01", "2006-01-01", "2006-04-01", "2006-07-01", "2006-10-01", "2007-01-01", "2007-04-01", "2007-07-01", "2007-10-01", "2008-01-01", "2008-04-01", "2008-07-01", "2008-10-01", "2009-01-01", "2009-04-01", "2009-07-01"],
      "actual": [1731.189, 1789.327, 1810.779, 1814.531, 1813.219, 1813.141, 1823.698, 1889.883, 1959.783, 1970.015, 2055.58, 2082.231, 2125.152, 2170.299, 2131.468, 2154.949, 2232.193, 2264.721, 2261.247, 2229.636, 2165.966, 2132.609, 2162.214, 2166.491, 2123.426, 2082.886, 2026.518, 1990.693, 1857.661, 1558.494, 1456.678, 1486.398],
      "forecast_start": 24,
      "mean": [2165.3124, 2164.6578, 2164.1341, 2163.7151, 2163.3799, 2163.1118, 2162.8973, 2162.7256],
      "lower": [2118.3609, 2092.9523, 2069.6933, 2047.7645, 2026.9353, 2007.1036, 1988.2005, 1970.1658],
      "upper": [2212.2639, 2236.3632, 2258.5748, 2279.6657, 2299.8245, 2319.12, 2337.594, 2355.2855],
      "seasonal_naive": [2165.966, 2132.609, 2162.214, 2166.491, 2165.966, 2132.609, 2162.214, 2166.491]
    },
    {
      "series": "realgovt",
      "timestamps": ["2001-10-01", "2002-01-01", "2002-04-01", "2002-07-01", "2002-10-01", "2003-01-01", "2003-04-01", "2003-07-01", "2003-10-01", "2004-01-01", "2004-04-01", "2004-07-01", "2004-10-01", "2005-01-01", "2005-04-01", "2005-07-01", "2005-10-01", "2006-01-01", "2006-04-01", "2006-07-01", "2006-10-01", "2007-01-01", "2007-04-01", "2007-07-01", "2007-10-01", "2008-01-01", "2008-04-01", "2008-07-01", "2008-10-01", "2009-01-01", "2009-04-01", "2009-07-01"],
      "actual": [739.318, 756.915, 774.408, 786.673, 799.967, 800.196, 838.775, 839.598, 845.722, 856.57, 861.44, 876.385, 865.596, 869.204, 870.044, 890.394, 875.557, 900.511, 892.839, 892.002, 894.404, 882.766, 898.713, 918.983, 925.11, 943.372, 961.28, 991.551, 1007.273, 996.287, 1023.528, 1044.088],
      "forecast_start": 24,
      "mean": [916.4924, 921.4974, 925.9752, 929.9815, 933.5657, 936.7725, 939.6415, 942.2083],
      "lower": [901.0932, 901.2903, 900.3542, 898.59, 896.1969, 893.3152, 890.0493, 886.48],
      "upper": [931.8917, 941.7046, 951.5963, 961.3729, 970.9345, 980.2297, 989.2336, 997.9366],
      "seasonal_naive": [894.404, 882.766, 898.713, 918.983, 894.404, 882.766, 898.713, 918.983]
    },
    {
      "series": "cpi",
      "timestamps": ["2001-10-01", "2002-01-01", "2002-04-01", "2002-07-01", "2002-10-01", "2003-01-01", "2003-04-01", "2003-07-01", "2003-10-01", "2004-01-01", "2004-04-01", "2004-07-01", "2004-10-01", "2005-01-01", "2005-04-01", "2005-07-01", "2005-10-01", "2006-01-01", "2006-04-01", "2006-07-01", "2006-10-01", "2007-01-01", "2007-04-01", "2007-07-01", "2007-10-01", "2008-01-01", "2008-04-01", "2008-07-01", "2008-10-01", "2009-01-01", "2009-04-01", "2009-07-01"],
      "actual": [177.7, 179.3, 180.0, 181.2, 182.6, 183.2, 183.7, 184.9, 186.3, 187.4, 189.1, 190.8, 191.8, 193.8, 194.7, 199.2, 199.4, 200.7, 202.7, 201.9, 203.574, 205.92, 207.338, 209.133, 212.495, 213.997, 218.61, 216.889, 212.174, 212.671, 214.469, 216.385],
      "forecast_start": 24,
      "mean": [210.6525, 212.2123, 213.7409, 215.239, 216.707, 218.1458, 219.5557, 220.9375],
      "lower": [209.9482, 211.1388, 212.2384, 213.2603, 214.2126, 215.101, 215.9302, 216.7038],
      "upper": [211.3569, 213.2858, 215.2434, 217.2176, 219.2015, 221.1905, 223.1812, 225.1711],
      "seasonal_naive": [203.574, 205.92, 207.338, 209.133, 203.574, 205.92, 207.338, 209.133]
    },
    {
      "series": "unemp",
      "timestamps": ["2001-10-01", "2002-01-01", "2002-04-01", "2002-07-01", "2002-10-01", "2003-01-01", "2003-04-01", "2003-07-01", "2003-10-01", "2004-01-01", "2004-04-01", "2004-07-01", "2004-10-01", "2005-01-01", "2005-04-01", "2005-07-01", "2005-10-01", "2006-01-01", "2006-04-01", "2006-07-01", "2006-10-01", "2007-01-01", "2007-04-01", "2007-07-01", "2007-10-01", "2008-01-01", "2008-04-01", "2008-07-01", "2008-10-01", "2009-01-01", "2009-04-01", "2009-07-01"],
      "actual": [5.5, 5.7, 5.8, 5.7, 5.8, 5.9, 6.2, 6.1, 5.8, 5.7, 5.6, 5.4, 5.4, 5.3, 5.1, 5.0, 4.9, 4.7, 4.7, 4.7, 4.4, 4.5, 4.5, 4.7, 4.8, 4.9, 5.4, 6.0, 6.9, 8.1, 9.2, 9.6],
      "forecast_start": 24,
      "mean": [4.847, 4.9647, 5.0588, 5.1341, 5.1943, 5.2425, 5.2811, 5.3119],
      "lower": [4.5172, 4.3044, 4.0477, 3.7667, 3.4736, 3.1763, 2.88, 2.5878],
      "upper": [5.1769, 5.625, 6.0698, 6.5015, 6.9151, 7.3087, 7.6822, 8.036],
      "seasonal_naive": [4.4, 4.5, 4.5, 4.7, 4.4, 4.5, 4.5, 4.7]
    }
  ],
  "model": {"path": "/srv/sampan/models/model.onnx", "sha256": "5b1f000000000000000000000000000000000000000000000000000000000000"}
};

/** The comparison the API answers for V1 (the report above) and V2 (theta on the same window). */
export const FORECAST_COMPARISON: ForecastComparison = {
  "kind": "forecast_comparison",
  "version": 1,
  "a": 31,
  "b": 32,
  "a_name": "V1",
  "b_name": "V2",
  "mase": {"a": 2.3633, "b": 2.2749, "delta": -0.0884},
  "smape": {"a": 9.6687, "b": 10.8099, "delta": 1.1412},
  "rmse": {"a": 238.8302, "b": 180.3715, "delta": -58.4587},
  "coverage": {"a": 0.2292, "b": null, "delta": null},
  "skill": {"a": 0.0572, "b": 0.0925, "delta": 0.0353},
  "per_series": [
    {
      "series": "realinv",
      "mase": {"a": 4.4591, "b": 4.7705, "delta": 0.3114}
    },
    {
      "series": "unemp",
      "mase": {"a": 2.4752, "b": 3.0422, "delta": 0.567}
    },
    {
      "series": "realgovt",
      "mase": {"a": 2.378, "b": 2.8318, "delta": 0.4538}
    },
    {
      "series": "realgdp",
      "mase": {"a": 2.1017, "b": 1.1816, "delta": -0.9201}
    },
    {
      "series": "realcons",
      "mase": {"a": 1.7624, "b": 0.9188, "delta": -0.8436}
    },
    {
      "series": "cpi",
      "mase": {"a": 1.0031, "b": 0.9045, "delta": -0.0986}
    }
  ],
  "by_horizon": [
    {
      "step": 1,
      "mase": {"a": 0.2783, "b": 0.361, "delta": 0.0827}
    },
    {
      "step": 2,
      "mase": {"a": 0.602, "b": 0.6653, "delta": 0.0633}
    },
    {
      "step": 3,
      "mase": {"a": 1.0924, "b": 1.215, "delta": 0.1226}
    },
    {
      "step": 4,
      "mase": {"a": 1.5915, "b": 1.698, "delta": 0.1065}
    },
    {
      "step": 5,
      "mase": {"a": 2.6032, "b": 2.3093, "delta": -0.2939}
    },
    {
      "step": 6,
      "mase": {"a": 3.7088, "b": 3.4192, "delta": -0.2896}
    },
    {
      "step": 7,
      "mase": {"a": 4.4713, "b": 4.2073, "delta": -0.264}
    },
    {
      "step": 8,
      "mase": {"a": 4.5586, "b": 4.324, "delta": -0.2346}
    }
  ]
};

/**
 * A forecast report as the worker writes it: workers.time_series.trainer.train (fast preset, model
 * auto) and evaluation.evaluate on synthetic.multi_series(n_series=4, length=120, seed=1,
 * intermittent=1) with horizon 14, captured on 2026-12-05, numbers rounded to 4 places. LightGBM won
 * the backtest windows (weight 1); ARIMA and theta were not candidates of the fast preset.
 */
export const FORECAST_WORKER_EVALUATION: ForecastReport = {
  "kind": "forecast_report",
  "version": 1,
  "split": "test",
  "horizon": 14,
  "frequency": "D",
  "season_length": 7,
  "interval_level": 0.8,
  "model_name": "lightgbm",
  "series_count": 4,
  "observations": 56,
  "headline": {"mase": 1.0458, "smape": 46.1345, "rmse": 35.8291, "coverage": 0.6607, "width": 0.8306},
  "seasonal_naive": {"mase": 1.1152, "smape": 43.6559, "rmse": 46.5977, "coverage": 0.8929, "width": 1.7648},
  "skill": 0.0623,
  "baselines": [
    {
      "model": "naive",
      "test": {"mase": 1.4561, "smape": 56.6006, "rmse": 49.0845, "coverage": 0.9643, "width": 3.3604},
      "validation": {"mase": 2.1261, "smape": 57.8464, "rmse": 70.1335, "coverage": 0.9018, "width": 4.0648},
      "chosen_weight": 0.0
    },
    {
      "model": "seasonal_naive",
      "test": {"mase": 1.1152, "smape": 43.6559, "rmse": 46.5977, "coverage": 0.8929, "width": 1.7648},
      "validation": {"mase": 1.5755, "smape": 49.4258, "rmse": 57.6865, "coverage": 0.8036, "width": 2.0565},
      "chosen_weight": 0.0
    },
    {
      "model": "ets",
      "test": {"mase": 0.9483, "smape": 42.0667, "rmse": 34.6753, "coverage": 0.875, "width": 1.4445},
      "validation": {"mase": 1.6288, "smape": 49.6249, "rmse": 58.5138, "coverage": 0.7768, "width": 1.6252},
      "chosen_weight": 0.0
    },
    {
      "model": "arima",
      "test": {"mase": 1.0883, "smape": 44.9997, "rmse": 35.4953, "coverage": 0.8393, "width": 1.3752},
      "validation": null,
      "chosen_weight": 0.0
    },
    {
      "model": "theta",
      "test": {"mase": 0.9436, "smape": 40.3585, "rmse": 35.0533, "coverage": 0.875, "width": 1.3294},
      "validation": null,
      "chosen_weight": 0.0
    },
    {
      "model": "lightgbm",
      "test": {"mase": 1.0458, "smape": 46.1345, "rmse": 35.8291, "coverage": 0.6607, "width": 0.8306},
      "validation": {"mase": 1.0134, "smape": 46.8841, "rmse": 35.0046, "coverage": 0.7143, "width": 0.8957},
      "chosen_weight": 1.0
    }
  ],
  "per_series": [
    {"series": "s03", "mase": 1.833, "smape": 34.3795, "rmse": 39.2447, "coverage": 0.3571, "width": 0.2646, "seasonal_naive_mase": 1.8039, "skill": -0.0161},
    {"series": "s04", "mase": 0.9207, "smape": 123.0978, "rmse": 1.1269, "coverage": 0.7143, "width": 1.8212, "seasonal_naive_mase": 0.8571, "skill": -0.0741},
    {"series": "s02", "mase": 0.8424, "smape": 13.0464, "rmse": 74.0761, "coverage": 0.7143, "width": 0.5926, "seasonal_naive_mase": 1.3557, "skill": 0.3786},
    {"series": "s01", "mase": 0.5869, "smape": 14.0144, "rmse": 28.8688, "coverage": 0.8571, "width": 0.6439, "seasonal_naive_mase": 0.4441, "skill": -0.3217}
  ],
  "by_horizon": [
    {"step": 1, "mase": 0.5107, "smape": 22.7647, "rmse": 38.2546, "seasonal_naive_mase": 1.1614},
    {"step": 2, "mase": 1.0721, "smape": 44.545, "rmse": 31.2571, "seasonal_naive_mase": 1.63},
    {"step": 3, "mase": 0.8184, "smape": 62.5163, "rmse": 43.6636, "seasonal_naive_mase": 0.9911},
    {"step": 4, "mase": 0.4206, "smape": 16.0948, "rmse": 24.4572, "seasonal_naive_mase": 0.2776},
    {"step": 5, "mase": 0.4482, "smape": 59.0466, "rmse": 17.9712, "seasonal_naive_mase": 0.8227},
    {"step": 6, "mase": 0.6241, "smape": 23.7691, "rmse": 41.5953, "seasonal_naive_mase": 0.0852},
    {"step": 7, "mase": 0.7373, "smape": 38.0655, "rmse": 16.6542, "seasonal_naive_mase": 1.0556},
    {"step": 8, "mase": 1.2597, "smape": 72.0492, "rmse": 46.1937, "seasonal_naive_mase": 1.5193},
    {"step": 9, "mase": 2.6396, "smape": 81.3645, "rmse": 111.3127, "seasonal_naive_mase": 2.2357},
    {"step": 10, "mase": 1.5879, "smape": 74.6873, "rmse": 45.1834, "seasonal_naive_mase": 1.6884},
    {"step": 11, "mase": 1.2279, "smape": 25.273, "rmse": 34.6185, "seasonal_naive_mase": 1.2474},
    {"step": 12, "mase": 1.0053, "smape": 41.2295, "rmse": 24.9616, "seasonal_naive_mase": 0.6081},
    {"step": 13, "mase": 1.3073, "smape": 43.6002, "rmse": 32.8879, "seasonal_naive_mase": 1.1774},
    {"step": 14, "mase": 0.9814, "smape": 40.8771, "rmse": 27.7974, "seasonal_naive_mase": 1.113}
  ],
  "backtest": [
    {
      "index": 4,
      "role": "validation",
      "cutoff": "2023-02-20",
      "metrics": {"mase": 1.5902, "smape": 55.6096, "rmse": 51.907, "coverage": 0.7679, "width": 0.8961},
      "seasonal_naive": {"mase": 1.8837, "smape": 52.2577, "rmse": 54.0524, "coverage": 0.7679, "width": 1.5378}
    },
    {
      "index": 3,
      "role": "validation",
      "cutoff": "2023-03-06",
      "metrics": {"mase": 1.0921, "smape": 42.1696, "rmse": 37.5782, "coverage": 0.8036, "width": 1.3809},
      "seasonal_naive": {"mase": 1.6214, "smape": 49.1072, "rmse": 62.901, "coverage": 0.8036, "width": 2.028}
    },
    {
      "index": 2,
      "role": "validation",
      "cutoff": "2023-03-20",
      "metrics": {"mase": 0.5504, "smape": 53.8167, "rmse": 16.5873, "coverage": 0.9286, "width": 1.5833},
      "seasonal_naive": {"mase": 1.1473, "smape": 45.3671, "rmse": 42.8619, "coverage": 0.875, "width": 2.8786}
    },
    {
      "index": 1,
      "role": "validation",
      "cutoff": "2023-04-03",
      "metrics": {"mase": 0.821, "smape": 35.9404, "rmse": 33.9461, "coverage": 0.7143, "width": 0.8848},
      "seasonal_naive": {"mase": 1.6497, "smape": 50.9711, "rmse": 70.9306, "coverage": 0.7679, "width": 1.7813}
    },
    {
      "index": 0,
      "role": "test",
      "cutoff": "2023-04-17",
      "metrics": {"mase": 1.0458, "smape": 46.1345, "rmse": 35.8291, "coverage": 0.6607, "width": 0.8306},
      "seasonal_naive": {"mase": 1.1152, "smape": 43.6559, "rmse": 46.5977, "coverage": 0.8929, "width": 1.7648}
    }
  ],
  "plots": [
    {
      "series": "s03",
      "timestamps": ["2023-03-21", "2023-03-22", "2023-03-23", "2023-03-24", "2023-03-25", "2023-03-26", "2023-03-27", "2023-03-28", "2023-03-29", "2023-03-30", "2023-03-31", "2023-04-01", "2023-04-02", "2023-04-03", "2023-04-04", "2023-04-05", "2023-04-06", "2023-04-07", "2023-04-08", "2023-04-09", "2023-04-10", "2023-04-11", "2023-04-12", "2023-04-13", "2023-04-14", "2023-04-15", "2023-04-16", "2023-04-17", "2023-04-18", "2023-04-19", "2023-04-20", "2023-04-21", "2023-04-22", "2023-04-23", "2023-04-24", "2023-04-25", "2023-04-26", "2023-04-27", "2023-04-28", "2023-04-29", "2023-04-30", "2023-05-01"],
      "actual": [74.29, 87.17, 84.3, 99.6, 81.01, 56.75, 48.98, 72.02, 78.94, 84.05, 88.73, 114.01, 52.32, 50.8, 67.79, 73.22, 72.79, 72.05, 71.91, 47.62, 42.98, 66.51, 63.62, 66.34, 72.54, 74.03, 39.46, 43.53, 62.44, 65.75, 68.08, 64.97, 52.81, 42.2, 71.6, 106.04, 171.5, 123.47, 132.71, 89.67, 65.08, 59.86],
      "forecast_start": 28,
      "mean": [56.6036, 57.8119, 61.4376, 61.3971, 60.5914, 40.8314, 43.4941, 57.5491, 81.2897, 60.8851, 64.0563, 64.998, 42.0678, 42.5981],
      "lower": [51.5621, 52.6204, 51.7327, 52.4034, 53.6412, 38.2006, 36.9008, 50.3207, 43.5977, 51.1632, 53.6273, 54.8706, 37.7213, 37.491],
      "upper": [68.2637, 68.1485, 67.3598, 76.7769, 76.4764, 58.7452, 61.127, 68.8249, 84.1105, 67.3901, 80.5373, 78.338, 60.4872, 60.4496],
      "seasonal_naive": [66.51, 63.62, 66.34, 72.54, 74.03, 39.46, 43.53, 66.51, 63.62, 66.34, 72.54, 74.03, 39.46, 43.53]
    },
    {
      "series": "s04",
      "timestamps": ["2023-03-21", "2023-03-22", "2023-03-23", "2023-03-24", "2023-03-25", "2023-03-26", "2023-03-27", "2023-03-28", "2023-03-29", "2023-03-30", "2023-03-31", "2023-04-01", "2023-04-02", "2023-04-03", "2023-04-04", "2023-04-05", "2023-04-06", "2023-04-07", "2023-04-08", "2023-04-09", "2023-04-10", "2023-04-11", "2023-04-12", "2023-04-13", "2023-04-14", "2023-04-15", "2023-04-16", "2023-04-17", "2023-04-18", "2023-04-19", "2023-04-20", "2023-04-21", "2023-04-22", "2023-04-23", "2023-04-24", "2023-04-25", "2023-04-26", "2023-04-27", "2023-04-28", "2023-04-29", "2023-04-30", "2023-05-01"],
      "actual": [2.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 1.0, 1.0, 3.0, 1.0, 0.0, 3.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 0.0, 1.0, 3.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 2.0],
      "forecast_start": 28,
      "mean": [0.5499, 0.5783, 1.0273, 0.7395, 0.3108, 0.985, 0.3651, 0.4714, 0.4519, 0.8404, 0.7819, 0.5491, 1.0084, 0.6556],
      "lower": [-0.1252, -0.1721, -0.0659, -0.1177, -0.0929, 0.0148, -0.2056, -0.268, -0.2773, -0.0782, -0.1466, 0.0187, 0.0296, -0.3794],
      "upper": [1.7457, 1.7417, 2.1667, 1.9369, 1.5678, 2.5564, 1.8975, 1.5371, 2.2396, 1.8076, 1.8977, 1.9223, 2.4476, 1.8093],
      "seasonal_naive": [0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 0.0]
    },
    {
      "series": "s02",
      "timestamps": ["2023-03-21", "2023-03-22", "2023-03-23", "2023-03-24", "2023-03-25", "2023-03-26", "2023-03-27", "2023-03-28", "2023-03-29", "2023-03-30", "2023-03-31", "2023-04-01", "2023-04-02", "2023-04-03", "2023-04-04", "2023-04-05", "2023-04-06", "2023-04-07", "2023-04-08", "2023-04-09", "2023-04-10", "2023-04-11", "2023-04-12", "2023-04-13", "2023-04-14", "2023-04-15", "2023-04-16", "2023-04-17", "2023-04-18", "2023-04-19", "2023-04-20", "2023-04-21", "2023-04-22", "2023-04-23", "2023-04-24", "2023-04-25", "2023-04-26", "2023-04-27", "2023-04-28", "2023-04-29", "2023-04-30", "2023-05-01"],
      "actual": [255.48, 278.8, 266.23, 326.61, 349.01, 392.34, 281.23, 264.1, 305.17, 279.42, 348.83, 672.65, 373.52, 313.51, 294.16, 323.95, 293.37, 596.79, 756.41, 707.64, 560.01, 536.46, 592.85, 495.61, 357.55, 456.65, 382.83, 343.88, 340.8, 363.95, 316.29, 385.56, 488.26, 373.31, 427.52, 343.86, 581.22, 369.19, 419.08, 448.23, 476.13, 397.02],
      "forecast_start": 28,
      "mean": [416.9605, 422.3801, 399.7938, 428.4445, 500.4018, 456.1266, 422.0614, 421.5585, 776.1534, 429.9956, 425.4673, 488.6395, 443.9258, 433.2864],
      "lower": [317.8601, 356.4186, 322.3552, 384.1853, 393.2851, 402.6739, 370.5005, 388.3062, 278.5966, 377.4856, 387.1622, 388.9406, 396.9574, 355.7119],
      "upper": [529.2509, 579.7387, 521.5224, 598.3626, 598.4392, 611.5957, 514.8099, 533.8127, 1177.2502, 519.3739, 610.2754, 592.2754, 606.0589, 523.5428],
      "seasonal_naive": [536.46, 592.85, 495.61, 357.55, 456.65, 382.83, 343.88, 536.46, 592.85, 495.61, 357.55, 456.65, 382.83, 343.88]
    },
    {
      "series": "s01",
      "timestamps": ["2023-03-21", "2023-03-22", "2023-03-23", "2023-03-24", "2023-03-25", "2023-03-26", "2023-03-27", "2023-03-28", "2023-03-29", "2023-03-30", "2023-03-31", "2023-04-01", "2023-04-02", "2023-04-03", "2023-04-04", "2023-04-05", "2023-04-06", "2023-04-07", "2023-04-08", "2023-04-09", "2023-04-10", "2023-04-11", "2023-04-12", "2023-04-13", "2023-04-14", "2023-04-15", "2023-04-16", "2023-04-17", "2023-04-18", "2023-04-19", "2023-04-20", "2023-04-21", "2023-04-22", "2023-04-23", "2023-04-24", "2023-04-25", "2023-04-26", "2023-04-27", "2023-04-28", "2023-04-29", "2023-04-30", "2023-05-01"],
      "actual": [140.82, 118.76, 128.18, 117.85, 137.38, 181.59, 170.13, 149.02, 118.77, 117.14, 108.97, 206.57, 195.13, 181.6, 132.12, 212.27, 235.57, 192.09, 261.23, 392.45, 172.02, 117.48, 128.15, 147.14, 107.2, 129.35, 207.21, 187.49, 139.39, 126.11, 137.24, 115.92, 148.09, 206.2, 195.14, 146.75, 201.47, 138.42, 115.25, 141.54, 235.62, 212.99],
      "forecast_start": 28,
      "mean": [143.7449, 146.7271, 161.8973, 139.1732, 181.0109, 198.5075, 178.131, 134.635, 259.993, 161.8992, 121.5412, 157.3065, 183.1242, 174.5747],
      "lower": [109.4507, 108.4298, 114.6136, 91.8042, 120.7838, 130.0272, 115.3361, 119.4659, 79.8236, 114.9778, 94.3401, 124.6588, 119.5589, 117.3147],
      "upper": [205.4661, 208.7697, 205.6654, 210.8473, 208.3333, 217.4107, 210.3595, 207.5793, 294.9729, 199.2736, 209.5045, 202.6604, 223.4456, 211.5452],
      "seasonal_naive": [117.48, 128.15, 147.14, 107.2, 129.35, 207.21, 187.49, 117.48, 128.15, 147.14, 107.2, 129.35, 207.21, 187.49]
    }
  ],
  "model": {"path": "/srv/sampan/models/model.onnx", "sha256": "0c2ef6efe5922ab9c69597f6e59498f465bb11e70102d7c7d9d549c83a292dfc"}
};
