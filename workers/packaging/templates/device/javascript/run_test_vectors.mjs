// Run sampan_classifier.mjs in Node on PNG files, or on the SDK's test vectors and compare with
// the platform's answers.
//
//   npm install
//   node run_test_vectors.mjs --model ../model.fp32.onnx            # test vectors, prints a JSON summary
//   node run_test_vectors.mjs --model ../model.int8.onnx --out answers.json
//   node run_test_vectors.mjs --model ../model.int8.onnx digit.png  # classify PNG files
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";
import { loadClassifier, ort } from "./sampan_classifier.mjs";

const SDK = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// wasm float arithmetic differs from the native CPU kernels in the last bits: the scores are compared
// with this tolerance (fp32), and the top class must be the same
const RTOL = 1e-4;
const ATOL = 1e-5;

function readPNG(path) {
  const png = PNG.sync.read(readFileSync(path));
  return { data: png.data, width: png.width, height: png.height };
}

function parseArgs(argv) {
  const args = { model: join(SDK, "model.int8.onnx"), out: null, topK: 5, files: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--model") args.model = resolve(argv[++i]);
    else if (argv[i] === "--out") args.out = resolve(argv[++i]);
    else if (argv[i] === "--top-k") args.topK = Number(argv[++i]);
    else args.files.push(resolve(argv[i]));
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
ort.env.wasm.numThreads = 1;
const classifier = await loadClassifier({
  model: new Uint8Array(readFileSync(args.model)),
  preprocess: JSON.parse(readFileSync(join(SDK, "preprocess.json"), "utf8")),
  labels: JSON.parse(readFileSync(join(SDK, "labels.json"), "utf8")),
});

if (args.files.length) {
  for (const file of args.files) {
    console.log(JSON.stringify({ image: file, top_k: await classifier.classify(readPNG(file), { topK: args.topK }) }));
  }
} else {
  const which = basename(args.model).includes("int8") ? "int8" : "fp32";
  const expected = JSON.parse(readFileSync(join(SDK, "test_vectors", `expected.${which}.json`), "utf8"));
  const scores = [];
  let maxDiff = 0;
  let close = true;
  let sameTop = 0;
  for (const vector of expected.vectors) {
    const got = await classifier.scores(readPNG(join(SDK, "test_vectors", vector.file)));
    scores.push(got);
    got.forEach((value, i) => {
      const want = vector.scores[i];
      maxDiff = Math.max(maxDiff, Math.abs(value - want));
      if (Math.abs(value - want) > ATOL + RTOL * Math.abs(want)) close = false;
    });
    const top = got.indexOf(Math.max(...got));
    if (top === vector.top_k[0].index) sameTop++;
  }
  const result = { model: which, vectors: expected.vectors.length, allclose: close, rtol: RTOL, atol: ATOL,
                   max_abs_diff: maxDiff, top1_agreement: sameTop / expected.vectors.length };
  if (args.out) writeFileSync(args.out, JSON.stringify({ files: expected.vectors.map((v) => v.file), scores }));
  console.log(JSON.stringify(result));
  process.exitCode = sameTop === expected.vectors.length ? 0 : 1;
}
