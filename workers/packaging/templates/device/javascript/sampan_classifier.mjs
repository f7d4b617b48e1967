// Classify images with a Sampan device SDK model and onnxruntime-web, in the browser or in Node.
//
//   import { loadClassifier } from "./sampan_classifier.mjs";
//   const classifier = await loadClassifier({ model: modelBytes, preprocess: spec, labels });
//   const answer = await classifier.classify({ data: rgba, width, height }, { topK: 3 });
//   // [{ index: 3, label: "3", score: 0.98 }, ...]
//
// Images come in as decoded RGBA pixels (a canvas's ImageData in the browser, a PNG decoder's
// output in Node). The preprocessing follows ../preprocess.json as the platform applies it with
// Pillow: alpha composited over the background, the resize computed exactly as Pillow's
// (bilinear or bicubic convolution in 8-bit fixed point; stretch, or shorter side and centre crop),
// then (pixel * scale - mean) / std in float32, channels first.
import * as ort from "onnxruntime-web";

const PRECISION_BITS = 32 - 8 - 2;

const FILTERS = {
  bilinear: { support: 1.0, weight: (x) => { x = Math.abs(x); return x < 1.0 ? 1.0 - x : 0.0; } },
  bicubic: {
    support: 2.0,
    weight: (x) => {
      const a = -0.5;
      x = Math.abs(x);
      if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
      if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
      return 0.0;
    },
  },
};

// Pillow's precompute_coeffs + normalize_coeffs_8bpc: per output pixel, the first input pixel and
// the integer weights of the input pixels it covers.
function coefficients(inSize, outSize, filter) {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1.0);
  const support = filter.support * filterScale;
  const bounds = [];
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const xmin = Math.max(0, Math.trunc(center - support + 0.5));
    const xmax = Math.min(inSize, Math.trunc(center + support + 0.5)) - xmin;
    const weights = [];
    let total = 0.0;
    for (let x = 0; x < xmax; x++) {
      const w = filter.weight((x + xmin - center + 0.5) / filterScale);
      weights.push(w);
      total += w;
    }
    const fixed = weights.map((w) => {
      const v = total !== 0.0 ? w / total : w;
      return Math.trunc(v < 0 ? -0.5 + v * (1 << PRECISION_BITS) : 0.5 + v * (1 << PRECISION_BITS));
    });
    bounds.push({ xmin, weights: fixed });
  }
  return bounds;
}

function clip8(value) {
  const v = Math.floor(value / (1 << PRECISION_BITS));
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

// RGB (3 bytes per pixel) -> RGB, one axis at a time as Pillow does (horizontal pass first).
function resamplePass(src, width, height, outSize, horizontal, filter) {
  const coeffs = coefficients(horizontal ? width : height, outSize, filter);
  const outW = horizontal ? outSize : width;
  const outH = horizontal ? height : outSize;
  const out = new Uint8Array(outW * outH * 3);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      const { xmin, weights } = coeffs[horizontal ? x : y];
      for (let c = 0; c < 3; c++) {
        let acc = 1 << (PRECISION_BITS - 1);
        for (let i = 0; i < weights.length; i++) {
          const at = horizontal ? (y * width + xmin + i) * 3 + c : ((xmin + i) * width + x) * 3 + c;
          acc += src[at] * weights[i];
        }
        out[(y * outW + x) * 3 + c] = clip8(acc);
      }
    }
  }
  return out;
}

export function resizeRGB(rgb, width, height, outWidth, outHeight, resample = "bilinear") {
  const filter = FILTERS[resample];
  if (!filter) throw new Error(`resample ${resample} is not supported by this sample (bilinear, bicubic)`);
  let pixels = rgb;
  let w = width;
  let h = height;
  // Pillow shrinks first: the vertical pass goes first when the width grows and the height shrinks
  const verticalFirst = outWidth > width && outHeight < height;
  if (verticalFirst) {
    pixels = resamplePass(pixels, w, h, outHeight, false, filter);
    h = outHeight;
  }
  if (outWidth !== width) {
    pixels = resamplePass(pixels, w, h, outWidth, true, filter);
    w = outWidth;
  }
  if (outHeight !== h) pixels = resamplePass(pixels, w, h, outHeight, false, filter);
  return pixels;
}

// Pillow's alpha_composite of the image over an opaque background, then RGB.
export function toRGB(rgba, width, height, background = [255, 255, 255]) {
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const a = rgba[i * 4 + 3];
    for (let c = 0; c < 3; c++) {
      const s = rgba[i * 4 + c];
      if (a === 255) {
        rgb[i * 3 + c] = s;
      } else {
        const tmp = (s * a + background[c] * (255 - a)) * 128 + (0x80 << 7);
        rgb[i * 3 + c] = (((tmp >> 8) + tmp) >> 8) >> 7;
      }
    }
  }
  return rgb;
}

function roundHalfEven(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function cropRGB(rgb, width, left, top, cropW, cropH) {
  const out = new Uint8Array(cropW * cropH * 3);
  for (let y = 0; y < cropH; y++) {
    const start = ((top + y) * width + left) * 3;
    out.set(rgb.subarray(start, start + cropW * 3), y * cropW * 3);
  }
  return out;
}

// Decoded RGBA pixels -> the model's input, a Float32Array shaped [1, 3, H, W].
export function preprocess(image, spec) {
  const [height, width] = spec.image_size;
  let rgb = toRGB(image.data, image.width, image.height, spec.alpha_background);
  if (spec.resize_mode === "stretch") {
    rgb = resizeRGB(rgb, image.width, image.height, width, height, spec.resample);
  } else {
    const fraction = spec.crop_fraction;
    const scale = Math.max(width / fraction / image.width, height / fraction / image.height);
    const rw = Math.max(width, roundHalfEven(image.width * scale));
    const rh = Math.max(height, roundHalfEven(image.height * scale));
    rgb = resizeRGB(rgb, image.width, image.height, rw, rh, spec.resample);
    rgb = cropRGB(rgb, rw, Math.floor((rw - width) / 2), Math.floor((rh - height) / 2), width, height);
  }
  const plane = width * height;
  const out = new Float32Array(3 * plane);
  const scale = Math.fround(spec.scale);
  for (let c = 0; c < 3; c++) {
    const mean = Math.fround(spec.mean[c]);
    const std = Math.fround(spec.std[c]);
    for (let i = 0; i < plane; i++) {
      // float32 at each step, as NumPy computes it
      out[c * plane + i] = Math.fround(Math.fround(Math.fround(rgb[i * 3 + c] * scale) - mean) / std);
    }
  }
  return out;
}

export function softmax(logits) {
  let max = -Infinity;
  for (const v of logits) max = Math.max(max, v);
  const exp = Array.from(logits, (v) => Math.exp(v - max));
  const total = exp.reduce((a, b) => a + b, 0);
  return exp.map((v) => v / total);
}

export class Classifier {
  constructor(session, spec, labels) {
    this.session = session;
    this.spec = spec;
    this.labels = labels;
    this.inputName = session.inputNames[0];
    this.outputName = session.outputNames[0];
    // A model exported with a fixed batch dimension (e.g. 1, or 8) takes exactly that many images per run.
    const meta = session.inputMetadata?.[0];
    const first = meta?.isTensor && Array.isArray(meta.shape) ? meta.shape[0] : undefined;
    this.batchSize = typeof first === "number" && first > 0 ? first : 1;
  }

  // Class probabilities of one image (an array indexed by class): one run per image, the image in
  // the first slot of the model's batch (the other slots, if the batch is fixed above 1, are zeros).
  async scores(image) {
    const [height, width] = this.spec.image_size;
    const one = preprocess(image, this.spec);
    const data = this.batchSize === 1 ? one : new Float32Array(one.length * this.batchSize);
    if (data !== one) data.set(one);
    const input = new ort.Tensor("float32", data, [this.batchSize, 3, height, width]);
    const outputs = await this.session.run({ [this.inputName]: input });
    const logits = outputs[this.outputName].data;
    return softmax(logits.subarray(0, logits.length / this.batchSize));
  }

  async classify(image, { topK = 5 } = {}) {
    const scores = await this.scores(image);
    const order = scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score || a.index - b.index);
    return order.slice(0, topK).map(({ index, score }) => ({ index, label: this.labels[index] ?? String(index), score }));
  }
}

// model: a URL (browser), or the model file's bytes (Uint8Array, browser or Node).
export async function loadClassifier({ model, preprocess: spec, labels, sessionOptions = {} }) {
  const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"], ...sessionOptions });
  return new Classifier(session, spec, labels);
}

export { ort };
