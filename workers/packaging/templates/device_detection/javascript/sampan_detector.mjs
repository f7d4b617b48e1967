// Detect objects with a Sampan device SDK model and onnxruntime-web, in the browser or in Node.
//
//   import { loadDetector } from "./sampan_detector.mjs";
//   const detector = await loadDetector({ model: modelBytesOrUrl, preprocess: spec, labels });
//   const answer = await detector.detect({ data: rgba, width, height }, { scoreThreshold: 0.3 });
//   // { width, height, boxes: [{ label: "cat", index: 0, score: 0.91, x: 12, y: 40.5, width: 88, height: 51.2 }] }
//
// Images come in as decoded RGBA pixels (a canvas's ImageData in the browser, a PNG decoder's output
// in Node) and are preprocessed exactly as the platform does with Pillow (./preprocess.mjs). The
// model answers two maps at a quarter of its input size: "scores" [1, classes, S/4, S/4] (the
// probability that an object of the class is centred in the cell) and "boxes" [1, 4, S/4, S/4]
// (that object's left, top, width, height in the model's input pixels). decodeImage turns them into
// boxes as the platform's workers/object_detection/decode.py does, step for step: 3 x 3 peaks at or
// above the score threshold, boxes clipped and scaled to the original image, greedy NMS per class,
// the best max_detections by descending score.
import * as ort from "onnxruntime-web";
import { preprocess } from "./preprocess.mjs";

export const OUTPUT_STRIDE = 4;
const CANDIDATES_PER_IMAGE = 1000;

// Cells that are the maximum of their 3 x 3 neighbourhood in their class's map, with their score.
function peaks(scores, classes, height, width, threshold) {
  const found = [];
  const plane = height * width;
  for (let c = 0; c < classes; c++) {
    for (let row = 0; row < height; row++) {
      for (let col = 0; col < width; col++) {
        const value = scores[c * plane + row * width + col];
        if (!(value >= threshold)) continue;
        let isPeak = true;
        for (let dy = -1; dy <= 1 && isPeak; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const r = row + dy;
            const k = col + dx;
            if (r < 0 || k < 0 || r >= height || k >= width) continue;
            if (scores[c * plane + r * width + k] > value) { isPeak = false; break; }
          }
        }
        if (isPeak) found.push({ c, row, col, value });
      }
    }
  }
  return found;
}

function iou(a, b) {
  const inter = Math.max(Math.min(a[2], b[2]) - Math.max(a[0], b[0]), 0) * Math.max(Math.min(a[3], b[3]) - Math.max(a[1], b[1]), 0);
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / Math.max(union, 1e-12) : 0.0;
}

// Greedy NMS over members (indices into corners/values): kept indices, best score first.
function nonMaximumSuppression(members, corners, values, iouThreshold) {
  let order = members.map((m, position) => ({ m, position }))
    .sort((a, b) => values[b.m] - values[a.m] || a.position - b.position).map((e) => e.m);
  const kept = [];
  while (order.length) {
    const best = order.shift();
    kept.push(best);
    order = order.filter((other) => iou(corners[best], corners[other]) <= iouThreshold);
  }
  return kept;
}

// One image's boxes from its maps (Float32Arrays, channels first), as decode.py's decode_image.
export function decodeImage(scores, boxes, { classes, height, width, scaleX, scaleY, scoreThreshold = 0.3,
  maxDetections = 100, iouThreshold = 0.5 }) {
  const inputHeight = height * OUTPUT_STRIDE;
  const inputWidth = width * OUTPUT_STRIDE;
  let candidates = peaks(scores, classes, height, width, scoreThreshold);
  if (candidates.length > CANDIDATES_PER_IMAGE) {
    candidates = candidates.map((entry, position) => ({ entry, position }))
      .sort((a, b) => b.entry.value - a.entry.value || a.position - b.position)
      .slice(0, CANDIDATES_PER_IMAGE).map((e) => e.entry);
  }
  const plane = height * width;
  const clip = (v, high) => Math.min(Math.max(v, 0.0), high);
  const corners = candidates.map(({ row, col }) => {
    const at = row * width + col;
    const [x, y, w, h] = [0, 1, 2, 3].map((channel) => boxes[channel * plane + at]);
    return [clip(x, inputWidth) * scaleX, clip(y, inputHeight) * scaleY,
      clip(x + w, inputWidth) * scaleX, clip(y + h, inputHeight) * scaleY];
  });
  const values = candidates.map((entry) => entry.value);
  const labels = [...new Set(candidates.map((entry) => entry.c))].sort((a, b) => a - b);
  const found = [];
  for (const label of labels) {
    const members = [];
    candidates.forEach((entry, i) => {
      if (entry.c === label && corners[i][2] > corners[i][0] && corners[i][3] > corners[i][1]) members.push(i);
    });
    for (const i of nonMaximumSuppression(members, corners, values, iouThreshold)) {
      const [x1, y1, x2, y2] = corners[i];
      found.push({ index: label, score: values[i], x: x1, y: y1, width: x2 - x1, height: y2 - y1 });
    }
  }
  // a stable sort by descending score, as Python's list.sort
  return found.map((box, position) => ({ box, position }))
    .sort((a, b) => b.box.score - a.box.score || a.position - b.position)
    .slice(0, maxDetections).map((e) => e.box);
}

export class Detector {
  constructor(session, spec, labels) {
    this.session = session;
    this.spec = spec;
    this.labels = labels;
    this.inputName = session.inputNames[0];
  }

  // The model's two maps for one image (a batch of one).
  async maps(image) {
    const [height, width] = this.spec.image_size;
    const input = new ort.Tensor("float32", preprocess(image, this.spec), [1, 3, height, width]);
    const outputs = await this.session.run({ [this.inputName]: input });
    return { scores: outputs.scores, boxes: outputs.boxes };
  }

  async detect(image, { scoreThreshold = 0.3, maxDetections = 100 } = {}) {
    const [inputHeight, inputWidth] = this.spec.image_size;
    const { scores, boxes } = await this.maps(image);
    const [, classes, height, width] = scores.dims;
    const found = decodeImage(scores.data, boxes.data, {
      classes, height, width, scaleX: image.width / inputWidth, scaleY: image.height / inputHeight,
      scoreThreshold, maxDetections,
    });
    return {
      width: image.width,
      height: image.height,
      boxes: found.map((box) => ({ label: this.labels[box.index] ?? String(box.index), ...box })),
    };
  }
}

// model: a URL (browser), or the model file's bytes (Uint8Array, browser or Node).
export async function loadDetector({ model, preprocess: spec, labels, sessionOptions = {} }) {
  const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"], ...sessionOptions });
  return new Detector(session, spec, labels);
}

// A colour per class, the same for a class wherever it is drawn.
export function classColor(index) {
  return `hsl(${(index * 137.508) % 360}, 85%, 45%)`;
}

// Draws the image and its answer's boxes (outline, label and score) on a 2D canvas context. zoom: the
// canvas's pixels per image pixel (the context is scaled by it here; a small image is best shown
// enlarged, with image smoothing off), so lines and labels keep their size on screen.
export function drawBoxes(context, source, answer, { zoom = 1 } = {}) {
  context.save();
  context.imageSmoothingEnabled = false;
  context.setTransform(zoom, 0, 0, zoom, 0, 0);
  context.drawImage(source, 0, 0);
  const line = Math.max(2, Math.round(Math.min(answer.width, answer.height) * zoom / 300)) / zoom;
  const fontSize = 12 / zoom;
  context.font = `${fontSize}px system-ui, sans-serif`;
  context.textBaseline = "top";
  for (const box of answer.boxes) {
    const color = classColor(box.index);
    context.lineWidth = line;
    context.strokeStyle = color;
    context.strokeRect(box.x, box.y, box.width, box.height);
    const text = `${box.label} ${(box.score * 100).toFixed(0)}%`;
    const textWidth = context.measureText(text).width + 4 / zoom;
    const textHeight = fontSize + 4 / zoom;
    const top = box.y >= textHeight ? box.y - textHeight : box.y;
    context.fillStyle = color;
    context.fillRect(box.x, top, textWidth, textHeight);
    context.fillStyle = "#fff";
    context.fillText(text, box.x + 2 / zoom, top + 2 / zoom);
  }
  context.restore();
}

export { ort, preprocess };
