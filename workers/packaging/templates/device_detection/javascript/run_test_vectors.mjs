// Run sampan_detector.mjs in Node on PNG files, or on the SDK's test vectors and compare with the
// platform's boxes.
//
//   npm install
//   node run_test_vectors.mjs --model ../model.fp32.onnx            # test vectors, prints a JSON summary
//   node run_test_vectors.mjs --model ../model.int8.onnx --out answers.json
//   node run_test_vectors.mjs --model ../model.int8.onnx street.png # detect in PNG files
//
// WebAssembly's float arithmetic differs from the native kernels in the last bits, so boxes are
// matched (same class, IoU >= 0.5) rather than compared bit for bit; the summary gives the largest
// score and coordinate differences of the matched boxes and the boxes found on one side only.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";
import { loadDetector, ort } from "./sampan_detector.mjs";

const SDK = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MIN_IOU = 0.5;

function readPNG(path) {
  const png = PNG.sync.read(readFileSync(path));
  return { data: png.data, width: png.width, height: png.height };
}

function parseArgs(argv) {
  const args = { model: join(SDK, "model.int8.onnx"), out: null, scoreThreshold: 0.3, maxDetections: 100, files: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--model") args.model = resolve(argv[++i]);
    else if (argv[i] === "--out") args.out = resolve(argv[++i]);
    else if (argv[i] === "--score-threshold") args.scoreThreshold = Number(argv[++i]);
    else if (argv[i] === "--max-detections") args.maxDetections = Number(argv[++i]);
    else args.files.push(resolve(argv[i]));
  }
  return args;
}

function iou(a, b) {
  const inter = Math.max(Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x), 0)
    * Math.max(Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y), 0);
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}

// Each wanted box paired with the unused got box of its class that overlaps it most.
function match(wanted, got) {
  const used = new Set();
  return wanted.map((box) => {
    let best = -1;
    let bestIou = MIN_IOU;
    got.forEach((other, j) => {
      if (used.has(j) || other.index !== box.index) return;
      const overlap = iou(box, other);
      if (overlap >= bestIou) { best = j; bestIou = overlap; }
    });
    if (best >= 0) used.add(best);
    return best;
  });
}

const args = parseArgs(process.argv.slice(2));
ort.env.wasm.numThreads = 1;
const detector = await loadDetector({
  model: new Uint8Array(readFileSync(args.model)),
  preprocess: JSON.parse(readFileSync(join(SDK, "preprocess.json"), "utf8")),
  labels: JSON.parse(readFileSync(join(SDK, "labels.json"), "utf8")),
});
const options = { scoreThreshold: args.scoreThreshold, maxDetections: args.maxDetections };

if (args.files.length) {
  for (const file of args.files) console.log(JSON.stringify({ image: file, ...(await detector.detect(readPNG(file), options)) }));
} else {
  const which = basename(args.model).includes("int8") ? "int8" : "fp32";
  const expected = JSON.parse(readFileSync(join(SDK, "test_vectors", `expected.${which}.json`), "utf8"));
  const answers = [];
  let matched = 0, wantedBoxes = 0, gotBoxes = 0, maxScoreDiff = 0, maxBoxDiff = 0;
  for (const vector of expected.vectors) {
    const answer = await detector.detect(readPNG(join(SDK, "test_vectors", vector.file)),
      { scoreThreshold: expected.score_threshold, maxDetections: expected.max_detections });
    answers.push(answer);
    wantedBoxes += vector.boxes.length;
    gotBoxes += answer.boxes.length;
    match(vector.boxes, answer.boxes).forEach((j, i) => {
      if (j < 0) return;
      matched++;
      const [a, b] = [vector.boxes[i], answer.boxes[j]];
      maxScoreDiff = Math.max(maxScoreDiff, Math.abs(a.score - b.score));
      for (const key of ["x", "y", "width", "height"]) maxBoxDiff = Math.max(maxBoxDiff, Math.abs(a[key] - b[key]));
    });
  }
  const result = { model: which, vectors: expected.vectors.length, expected_boxes: wantedBoxes, boxes: gotBoxes,
                   matched, max_score_diff: maxScoreDiff, max_box_diff_px: maxBoxDiff };
  if (args.out) writeFileSync(args.out, JSON.stringify({ files: expected.vectors.map((v) => v.file), answers }));
  console.log(JSON.stringify(result));
  process.exitCode = matched === wantedBoxes && gotBoxes === wantedBoxes ? 0 : 1;
}
