#include "learn/mlp.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/core/rng.h"

namespace gavel::learn {
namespace {

constexpr char kMagic[8] = {'G', 'A', 'V', 'E', 'L', 'M', 'L', 'P'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxLayerSize = 4096;
constexpr uint32_t kMaxLayers = 16;

}  // namespace

float StandardNormal(Rng& rng) {
  // Box-Muller from two uniforms: the same draws on every platform.
  const double u1 = (static_cast<double>(rng.Next() >> 11) + 1.0) / 9007199254740993.0;
  const double u2 = static_cast<double>(rng.Next() >> 11) / 9007199254740992.0;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
}

Mlp::Mlp(const std::vector<int>& sizes, uint64_t seed) : sizes_(sizes) {
  Rng rng(Rng::FromSeed(seed));
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    Layer layer;
    const int in = sizes[i], out = sizes[i + 1];
    const float scale = std::sqrt(2.0f / static_cast<float>(in));
    layer.weights.resize(out, in);
    for (int r = 0; r < out; ++r)
      for (int c = 0; c < in; ++c) layer.weights(r, c) = StandardNormal(rng) * scale;
    layer.bias = Eigen::VectorXf::Zero(out);
    layer.weights_m = layer.weights_v = Matrix::Zero(out, in);
    layer.bias_m = layer.bias_v = Eigen::VectorXf::Zero(out);
    layers_.push_back(std::move(layer));
  }
}

Eigen::VectorXf Mlp::Forward(const Matrix& inputs) const { return ForwardFrom(inputs, 0); }

Eigen::VectorXf Mlp::ForwardShared(const Eigen::VectorXf& shared, const Matrix& rest) const {
  const Layer& first = layers_.front();
  const Eigen::Index split = shared.size();
  const Eigen::VectorXf common = first.weights.leftCols(split) * shared + first.bias;
  Matrix hidden = rest * first.weights.rightCols(first.weights.cols() - split).transpose();
  hidden.rowwise() += common.transpose();
  if (layers_.size() == 1) return hidden.col(0);
  return ForwardFrom(hidden.cwiseMax(0.0f), 1);
}

Eigen::VectorXf Mlp::ForwardFrom(const Matrix& inputs, size_t first_layer) const {
  Matrix activations = inputs;
  for (size_t i = first_layer; i < layers_.size(); ++i) {
    Matrix next = activations * layers_[i].weights.transpose();
    next.rowwise() += layers_[i].bias.transpose();
    if (i + 1 < layers_.size()) next = next.cwiseMax(0.0f);
    activations = std::move(next);
  }
  return activations.col(0);
}

float Mlp::TrainStep(const Matrix& inputs, const Eigen::VectorXf& targets, float learning_rate) {
  const float batch = static_cast<float>(inputs.rows());
  return TrainStep(inputs, [&](const Eigen::VectorXf& outputs, Eigen::VectorXf* gradient) {
    *gradient = outputs - targets;
    const float loss = gradient->squaredNorm() / batch;
    *gradient *= 2.0f / batch;
    return loss;
  }, learning_rate);
}

float Mlp::TrainStep(const Matrix& inputs, const OutputLoss& output_loss, float learning_rate) {
  // Forward, keeping every layer's activations for the backward pass.
  std::vector<Matrix> activations = {inputs};
  for (size_t i = 0; i < layers_.size(); ++i) {
    Matrix next = activations.back() * layers_[i].weights.transpose();
    next.rowwise() += layers_[i].bias.transpose();
    if (i + 1 < layers_.size()) next = next.cwiseMax(0.0f);
    activations.push_back(std::move(next));
  }
  Eigen::VectorXf output_gradient;
  const float loss = output_loss(activations.back().col(0), &output_gradient);
  Matrix gradient = output_gradient;
  ++steps_;
  constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-8f;
  const float correction1 = 1 - std::pow(kBeta1, static_cast<float>(steps_));
  const float correction2 = 1 - std::pow(kBeta2, static_cast<float>(steps_));
  for (size_t i = layers_.size(); i-- > 0;) {
    Layer& layer = layers_[i];
    const Matrix weights_gradient = gradient.transpose() * activations[i];
    const Eigen::VectorXf bias_gradient = gradient.colwise().sum().transpose();
    if (i > 0) {
      gradient = gradient * layer.weights;
      gradient = gradient.cwiseProduct((activations[i].array() > 0).cast<float>().matrix());
    }
    layer.weights_m = kBeta1 * layer.weights_m + (1 - kBeta1) * weights_gradient;
    layer.weights_v = kBeta2 * layer.weights_v + (1 - kBeta2) * weights_gradient.cwiseProduct(weights_gradient);
    layer.bias_m = kBeta1 * layer.bias_m + (1 - kBeta1) * bias_gradient;
    layer.bias_v = kBeta2 * layer.bias_v + (1 - kBeta2) * bias_gradient.cwiseProduct(bias_gradient);
    layer.weights.array() -= learning_rate * (layer.weights_m.array() / correction1) /
                             ((layer.weights_v.array() / correction2).sqrt() + kEpsilon);
    layer.bias.array() -= learning_rate * (layer.bias_m.array() / correction1) /
                          ((layer.bias_v.array() / correction2).sqrt() + kEpsilon);
  }
  return loss;
}

Eigen::VectorXf Mlp::TailParameters(int layers) const {
  std::vector<float> values;
  for (size_t i = layers_.size() - static_cast<size_t>(layers); i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    values.insert(values.end(), layer.weights.data(), layer.weights.data() + layer.weights.size());
    values.insert(values.end(), layer.bias.data(), layer.bias.data() + layer.bias.size());
  }
  return Eigen::Map<const Eigen::VectorXf>(values.data(), static_cast<Eigen::Index>(values.size()));
}

void Mlp::SetTailParameters(int layers, const Eigen::VectorXf& values) {
  Eigen::Index at = 0;
  for (size_t i = layers_.size() - static_cast<size_t>(layers); i < layers_.size(); ++i) {
    Layer& layer = layers_[i];
    std::copy_n(values.data() + at, layer.weights.size(), layer.weights.data());
    at += layer.weights.size();
    std::copy_n(values.data() + at, layer.bias.size(), layer.bias.data());
    at += layer.bias.size();
  }
}

absl::StatusOr<Mlp> Mlp::Blend(const Mlp& a, const Mlp& b, float share) {
  if (a.sizes_ != b.sizes_) return absl::InvalidArgumentError("only networks of the same sizes blend");
  if (!(share >= 0 && share <= 1)) return absl::InvalidArgumentError("a blend's share is between 0 and 1");
  Mlp blend = a;
  const int layers = a.layer_count();
  blend.SetTailParameters(layers, (1 - share) * a.TailParameters(layers) + share * b.TailParameters(layers));
  return blend;
}

Eigen::VectorXf Mlp::TailScales(int layers) const {
  std::vector<float> scales;
  for (size_t i = layers_.size() - static_cast<size_t>(layers); i < layers_.size(); ++i) {
    const Layer& layer = layers_[i];
    const float rms = std::sqrt(layer.weights.squaredNorm() / static_cast<float>(layer.weights.size()));
    scales.insert(scales.end(), static_cast<size_t>(layer.weights.size() + layer.bias.size()), rms);
  }
  return Eigen::Map<const Eigen::VectorXf>(scales.data(), static_cast<Eigen::Index>(scales.size()));
}

namespace {
// A metadata line's key: what stands before its first '='.
absl::string_view KeyOf(absl::string_view line) { return line.substr(0, line.find('=')); }
}  // namespace

std::string Mlp::MetadataValue(absl::string_view key) const {
  for (absl::string_view line : absl::StrSplit(metadata, '\n'))
    if (KeyOf(line) == key) return std::string(line.substr(std::min(line.size(), key.size() + 1)));
  return "";
}

void Mlp::SetMetadataValue(absl::string_view key, absl::string_view value) {
  std::string updated;
  bool set = false;
  for (absl::string_view line : absl::StrSplit(metadata, '\n', absl::SkipEmpty())) {
    if (KeyOf(line) != key) {
      absl::StrAppend(&updated, line, "\n");
    } else if (!set) {
      absl::StrAppend(&updated, key, "=", value, "\n");
      set = true;
    }
  }
  if (!set) absl::StrAppend(&updated, key, "=", value, "\n");
  metadata = std::move(updated);
}

void Mlp::EraseMetadataValue(absl::string_view key) {
  std::string kept;
  for (absl::string_view line : absl::StrSplit(metadata, '\n', absl::SkipEmpty()))
    if (KeyOf(line) != key) absl::StrAppend(&kept, line, "\n");
  metadata = std::move(kept);
}

absl::Status Mlp::Save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  auto put_u32 = [&](uint32_t value) { out.write(reinterpret_cast<const char*>(&value), 4); };
  out.write(kMagic, sizeof kMagic);
  put_u32(kVersion);
  put_u32(static_cast<uint32_t>(layers_.size()));
  for (int size : sizes_) put_u32(static_cast<uint32_t>(size));
  for (const Layer& layer : layers_) {
    out.write(reinterpret_cast<const char*>(layer.weights.data()),
              static_cast<std::streamsize>(layer.weights.size() * sizeof(float)));
    out.write(reinterpret_cast<const char*>(layer.bias.data()),
              static_cast<std::streamsize>(layer.bias.size() * sizeof(float)));
  }
  put_u32(static_cast<uint32_t>(metadata.size()));
  out.write(metadata.data(), static_cast<std::streamsize>(metadata.size()));
  if (!out) return absl::UnavailableError(absl::StrCat("writing ", path, " failed"));
  return absl::OkStatus();
}

absl::StatusOr<Mlp> Mlp::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("weights file ", path, " cannot be opened"));
  auto bad = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat("weights file ", path, " is corrupt: ", what));
  };
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0) return bad("wrong magic");
  auto get_u32 = [&](uint32_t* value) { return static_cast<bool>(in.read(reinterpret_cast<char*>(value), 4)); };
  uint32_t version = 0, layers = 0;
  if (!get_u32(&version) || version != kVersion) return bad("unknown version");
  if (!get_u32(&layers) || layers == 0 || layers > kMaxLayers) return bad("bad layer count");
  Mlp mlp;
  for (uint32_t i = 0; i <= layers; ++i) {
    uint32_t size = 0;
    if (!get_u32(&size) || size == 0 || size > kMaxLayerSize) return bad("bad layer size");
    mlp.sizes_.push_back(static_cast<int>(size));
  }
  if (mlp.sizes_.back() != 1) return bad("the output size must be 1");
  for (uint32_t i = 0; i < layers; ++i) {
    Layer layer;
    const int in_size = mlp.sizes_[i], out_size = mlp.sizes_[i + 1];
    layer.weights.resize(out_size, in_size);
    layer.bias.resize(out_size);
    in.read(reinterpret_cast<char*>(layer.weights.data()),
            static_cast<std::streamsize>(layer.weights.size() * sizeof(float)));
    in.read(reinterpret_cast<char*>(layer.bias.data()),
            static_cast<std::streamsize>(layer.bias.size() * sizeof(float)));
    if (!in) return bad("truncated weights");
    if (!layer.weights.allFinite() || !layer.bias.allFinite()) return bad("non-finite weights");
    layer.weights_m = layer.weights_v = Matrix::Zero(out_size, in_size);
    layer.bias_m = layer.bias_v = Eigen::VectorXf::Zero(out_size);
    mlp.layers_.push_back(std::move(layer));
  }
  uint32_t metadata_size = 0;
  if (!get_u32(&metadata_size) || metadata_size > (1u << 16)) return bad("bad metadata");
  mlp.metadata.resize(metadata_size);
  if (!in.read(mlp.metadata.data(), metadata_size)) return bad("truncated metadata");
  if (in.peek() != std::ifstream::traits_type::eof()) return bad("trailing bytes");
  return mlp;
}

}  // namespace gavel::learn
