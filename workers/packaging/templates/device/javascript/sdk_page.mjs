// What the device SDK's pages (index.html) share: the status line, the model picker, the model's
// JSON companions, an image file decoded to RGBA pixels, and the drop zone and file input.
const status = document.getElementById("status");

// data-state: loading, ready, running, done or error (tests wait on it); the text is for people.
export function setStatus(state, text) {
  status.dataset.state = state;
  status.textContent = text;
}

// [preprocess.json, labels.json] of the SDK (the page is served from its javascript/ folder).
export function readCompanions() {
  return Promise.all([
    fetch("../preprocess.json").then((r) => r.json()),
    fetch("../labels.json").then((r) => r.json()),
  ]);
}

// The file's pixels as the browser decodes them, untouched (no colour conversion, no premultiplied
// alpha): { bitmap, image: { data (RGBA), width, height } }.
export async function decodeFile(file) {
  const bitmap = await createImageBitmap(file, { colorSpaceConversion: "none", premultiplyAlpha: "none" });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.drawImage(bitmap, 0, 0);
  const pixels = context.getImageData(0, 0, bitmap.width, bitmap.height);
  return { bitmap, image: { data: pixels.data, width: pixels.width, height: pixels.height } };
}

// Calls load(modelUrl) for the picked model now and whenever another is picked, and handle(file)
// for each image dropped on #drop or chosen with #file.
export async function runPage({ load, handle }) {
  const picker = document.getElementById("model");
  async function loadPicked() {
    setStatus("loading", "Loading the model…");
    await load(picker.value);
    setStatus("ready", "Ready");
  }
  const drop = document.getElementById("drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    if (event.dataTransfer.files.length) handle(event.dataTransfer.files[0]);
  });
  document.getElementById("file").addEventListener("change", (event) => {
    if (event.target.files.length) handle(event.target.files[0]);
  });
  picker.addEventListener("change", loadPicked);
  try {
    await loadPicked();
  } catch (error) {
    setStatus("error", `Could not load the model: ${error}`);
  }
}
