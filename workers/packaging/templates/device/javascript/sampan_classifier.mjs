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
import { preprocess } from "./preprocess.mjs";

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

export { ort, preprocess };
