// Classify PNG images with this SDK's ONNX model through the ONNX Runtime C++ API.
//
//   make ONNXRUNTIME_INCLUDE=/usr/include/onnxruntime ONNXRUNTIME_LIB=/usr/lib/x86_64-linux-gnu/libonnxruntime.so
//   ./classify ../model.int8.onnx photo.png another.png
//
// One JSON line per image: {"image": ..., "scores": [by class index], "top_k": [{"index", "label", "score"}, ...]}.
// The preprocessing is the platform's (see ../preprocess.json, compiled in as model_spec.h): alpha
// composited over the background, Pillow's resampling (bilinear or bicubic convolution in 8-bit
// fixed point; stretch, or shorter side then centre crop), (pixel * scale - mean) / std in float32, CHW.
#include <onnxruntime_cxx_api.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "model_spec.h"

namespace {

struct RGBImage {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // RGB, row major
};

// Decode a PNG with libpng's simplified API, then composite transparency as Pillow does.
RGBImage read_png(const char* path) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path)) throw std::runtime_error(std::string(path) + ": " + image.message);
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr)) {
    throw std::runtime_error(std::string(path) + ": " + image.message);
  }
  RGBImage out{static_cast<int>(image.width), static_cast<int>(image.height), {}};
  out.pixels.resize(static_cast<size_t>(out.width) * out.height * 3);
  for (size_t i = 0; i < static_cast<size_t>(out.width) * out.height; i++) {
    const int alpha = rgba[i * 4 + 3];
    for (int c = 0; c < 3; c++) {
      const int source = rgba[i * 4 + c];
      if (alpha == 255) {
        out.pixels[i * 3 + c] = static_cast<uint8_t>(source);
      } else {
        const int tmp = (source * alpha + spec::kAlphaBackground[c] * (255 - alpha)) * 128 + (0x80 << 7);
        out.pixels[i * 3 + c] = static_cast<uint8_t>((((tmp >> 8) + tmp) >> 8) >> 7);
      }
    }
  }
  return out;
}

constexpr int kPrecisionBits = 32 - 8 - 2;

double bilinear(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

double bicubic(double x) {
  const double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

struct Coefficients {
  int first;
  std::vector<int32_t> weights;
};

// Pillow's precompute_coeffs + normalize_coeffs_8bpc.
std::vector<Coefficients> coefficients(int in_size, int out_size, bool cubic) {
  const double support_base = cubic ? 2.0 : 1.0;
  const double scale = static_cast<double>(in_size) / out_size;
  const double filter_scale = std::max(scale, 1.0);
  const double support = support_base * filter_scale;
  std::vector<Coefficients> all;
  for (int xx = 0; xx < out_size; xx++) {
    const double center = (xx + 0.5) * scale;
    const int xmin = std::max(0, static_cast<int>(center - support + 0.5));
    const int xmax = std::min(in_size, static_cast<int>(center + support + 0.5)) - xmin;
    std::vector<double> weights(xmax);
    double total = 0.0;
    for (int x = 0; x < xmax; x++) {
      const double arg = (x + xmin - center + 0.5) / filter_scale;
      weights[x] = cubic ? bicubic(arg) : bilinear(arg);
      total += weights[x];
    }
    Coefficients entry{xmin, {}};
    for (double w : weights) {
      const double v = total != 0.0 ? w / total : w;
      entry.weights.push_back(static_cast<int32_t>(v < 0 ? -0.5 + v * (1 << kPrecisionBits) : 0.5 + v * (1 << kPrecisionBits)));
    }
    all.push_back(entry);
  }
  return all;
}

uint8_t clip8(int64_t value) {
  const int64_t v = value >> kPrecisionBits;
  return static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
}

RGBImage resample_pass(const RGBImage& in, int out_size, bool horizontal, bool cubic) {
  const auto coeffs = coefficients(horizontal ? in.width : in.height, out_size, cubic);
  RGBImage out{horizontal ? out_size : in.width, horizontal ? in.height : out_size, {}};
  out.pixels.resize(static_cast<size_t>(out.width) * out.height * 3);
  for (int y = 0; y < out.height; y++) {
    for (int x = 0; x < out.width; x++) {
      const Coefficients& k = coeffs[horizontal ? x : y];
      for (int c = 0; c < 3; c++) {
        int64_t acc = 1 << (kPrecisionBits - 1);
        for (size_t i = 0; i < k.weights.size(); i++) {
          const size_t at = horizontal ? (static_cast<size_t>(y) * in.width + k.first + i) * 3 + c
                                       : ((k.first + i) * static_cast<size_t>(in.width) + x) * 3 + c;
          acc += static_cast<int64_t>(in.pixels[at]) * k.weights[i];
        }
        out.pixels[(static_cast<size_t>(y) * out.width + x) * 3 + c] = clip8(acc);
      }
    }
  }
  return out;
}

RGBImage resize(const RGBImage& in, int width, int height) {
  const bool cubic = std::string(spec::kResample) == "bicubic";
  if (!cubic && std::string(spec::kResample) != "bilinear") {
    throw std::runtime_error(std::string("resample ") + spec::kResample + " is not supported by this sample");
  }
  RGBImage out = in;
  // Pillow shrinks first: the vertical pass goes first when the width grows and the height shrinks
  if (width > out.width && height < out.height) out = resample_pass(out, height, false, cubic);
  if (width != out.width) out = resample_pass(out, width, true, cubic);
  if (height != out.height) out = resample_pass(out, height, false, cubic);
  return out;
}

double round_half_even(double x) {
  return std::nearbyint(x);  // the default rounding mode rounds halves to even, as Python's round()
}

// One image -> the model's float32 input (3, H, W).
std::vector<float> preprocess(const RGBImage& image) {
  const int height = spec::kHeight, width = spec::kWidth;
  RGBImage sized;
  if (std::string(spec::kResizeMode) == "stretch") {
    sized = resize(image, width, height);
  } else {
    const double fraction = spec::kCropFraction;
    const double scale = std::max(width / fraction / image.width, height / fraction / image.height);
    const int rw = std::max(width, static_cast<int>(round_half_even(image.width * scale)));
    const int rh = std::max(height, static_cast<int>(round_half_even(image.height * scale)));
    const RGBImage resized = resize(image, rw, rh);
    const int left = (rw - width) / 2, top = (rh - height) / 2;
    sized = RGBImage{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3)};
    for (int y = 0; y < height; y++) {
      std::memcpy(&sized.pixels[static_cast<size_t>(y) * width * 3],
                  &resized.pixels[((static_cast<size_t>(top) + y) * rw + left) * 3], static_cast<size_t>(width) * 3);
    }
  }
  std::vector<float> out(static_cast<size_t>(3) * height * width);
  const size_t plane = static_cast<size_t>(height) * width;
  for (int c = 0; c < 3; c++) {
    for (size_t i = 0; i < plane; i++) {
      const float scaled = static_cast<float>(sized.pixels[i * 3 + c]) * spec::kScale;
      out[c * plane + i] = (scaled - spec::kMean[c]) / spec::kStd[c];
    }
  }
  return out;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", ch);
      out += buffer;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx IMAGE.png [IMAGE.png ...] [--top-k N]\n", argv[0]);
    return 2;
  }
  int top_k = 5;
  std::vector<const char*> images;
  for (int i = 2; i < argc; i++) {
    if (std::string(argv[i]) == "--top-k" && i + 1 < argc) {
      top_k = std::atoi(argv[++i]);
    } else {
      images.push_back(argv[i]);
    }
  }
  try {
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "sampan");
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(1);
    Ort::Session session(env, argv[1], options);
    Ort::AllocatorWithDefaultOptions allocator;
    const auto input_name = session.GetInputNameAllocated(0, allocator);
    const auto output_name = session.GetOutputNameAllocated(0, allocator);
    const char* input_names[] = {input_name.get()};
    const char* output_names[] = {output_name.get()};
    const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    // One image per run: a batch of 1, or the model's fixed batch size with the other slots zero.
    const int64_t fixed = session.GetInputTypeInfo(0).GetTensorTypeAndShapeInfo().GetShape()[0];
    const int64_t batch = fixed > 0 ? fixed : 1;
    const int64_t shape[] = {batch, 3, spec::kHeight, spec::kWidth};
    for (const char* path : images) {
      std::vector<float> input = preprocess(read_png(path));
      const size_t one = input.size();
      input.resize(one * static_cast<size_t>(batch), 0.0f);
      Ort::Value tensor = Ort::Value::CreateTensor<float>(memory, input.data(), input.size(), shape, 4);
      auto outputs = session.Run(Ort::RunOptions{nullptr}, input_names, &tensor, 1, output_names, 1);
      const float* logits = outputs[0].GetTensorData<float>();
      const size_t classes = outputs[0].GetTensorTypeAndShapeInfo().GetElementCount() / static_cast<size_t>(batch);
      const float largest = *std::max_element(logits, logits + classes);
      std::vector<double> scores(classes);
      double total = 0.0;
      for (size_t i = 0; i < classes; i++) total += scores[i] = std::exp(static_cast<double>(logits[i] - largest));
      for (double& s : scores) s /= total;
      std::vector<size_t> order(classes);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
      std::string line = "{\"image\": " + json_string(path) + ", \"scores\": [";
      for (size_t i = 0; i < classes; i++) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%s%.9g", i ? ", " : "", scores[i]);
        line += buffer;
      }
      line += "], \"top_k\": [";
      for (size_t r = 0; r < std::min(classes, static_cast<size_t>(top_k)); r++) {
        const size_t i = order[r];
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%s{\"index\": %zu, \"label\": ", r ? ", " : "", i);
        line += buffer;
        line += json_string(i < spec::kLabels.size() ? spec::kLabels[i] : std::to_string(i));
        std::snprintf(buffer, sizeof buffer, ", \"score\": %.9g}", scores[i]);
        line += buffer;
      }
      std::printf("%s]}\n", line.c_str());
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "classify: %s\n", error.what());
    return 1;
  }
  return 0;
}
