// Pillow-exact image preprocessing for Sampan device SDK models, in the browser or in Node.
//
//   import { preprocess } from "./preprocess.mjs";
//   const input = preprocess({ data: rgba, width, height }, spec);  // Float32Array [3 * H * W]
//
// Follows ../preprocess.json as the platform applies it with Pillow: alpha composited over the
// background, the resize computed exactly as Pillow's (bilinear or bicubic convolution in 8-bit fixed
// point; stretch, or shorter side and centre crop), then (pixel * scale - mean) / std in float32,
// channels first. Shared by the classifier and the detector samples.
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
