#pragma once
// A small multilayer perceptron (ReLU hidden layers, one linear output) with Adam, for
// Q(s, a) regression. Eigen does the linear algebra: it is header-only, in Debian, and
// fast enough for networks of this size on a CPU.
//
// File format (little-endian), version 1:
//   magic "GAVELMLP", uint32 version = 1, uint32 layer count L,
//   uint32 sizes[L + 1] (input size first, 1 last),
//   for each layer: float32 weights[out][in] row-major, float32 bias[out],
//   uint32 metadata length, metadata bytes: UTF-8 `key=value` lines. gavel-train writes
//   game, players, seed, episode (of the kept network), advice (the advisor, e.g. dirk),
//   inputs (what a row holds) and margin (both in learn/q_policy.h), after a policy search
//   search_iteration (of the kept weights), after a blend blend_share (Blend); readers
//   ignore keys they do not know.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/core/rng.h"

namespace gavel::learn {

// A standard normal draw, the same on every platform.
float StandardNormal(Rng& rng);

class Mlp {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  Mlp() = default;
  // sizes: input, hidden..., output (the output must be 1). Weights He-initialized from `seed`.
  Mlp(const std::vector<int>& sizes, uint64_t seed);

  int input_size() const { return sizes_.empty() ? 0 : sizes_.front(); }
  const std::vector<int>& sizes() const { return sizes_; }
  std::string metadata;  // free text saved with the weights: key=value lines
  // The value of `key` in the metadata, empty if absent.
  std::string MetadataValue(absl::string_view key) const;
  // Sets `key` where it stands (dropping any later line of it), or appends it: a network
  // trained on from another keeps one line per key.
  void SetMetadataValue(absl::string_view key, absl::string_view value);
  void EraseMetadataValue(absl::string_view key);

  // One output per row of `inputs` (rows = samples, columns = input_size()).
  Eigen::VectorXf Forward(const Matrix& inputs) const;
  // The same for rows that all begin with `shared` and go on with a row of `rest`
  // (shared.size() + rest.cols() == input_size()). The first layer's share of `shared` is
  // computed once, so scoring many moves of one view costs little more than one move.
  Eigen::VectorXf ForwardShared(const Eigen::VectorXf& shared, const Matrix& rest) const;

  int layer_count() const { return static_cast<int>(layers_.size()); }
  // The weights and biases of the last `layers` layers as one vector, layer by layer, and
  // back (a policy search perturbs these); `layers` must be 1..layer_count().
  Eigen::VectorXf TailParameters(int layers) const;
  void SetTailParameters(int layers, const Eigen::VectorXf& values);
  // For each entry of TailParameters: the RMS of its layer's weights, a step size that
  // suits that layer.
  Eigen::VectorXf TailScales(int layers) const;

  // A loss of the outputs (one per row of a batch): returns the loss and sets its gradient
  // with respect to each output.
  using OutputLoss = std::function<float(const Eigen::VectorXf& outputs, Eigen::VectorXf* gradient)>;
  // One Adam step on `loss`; returns the loss before it.
  float TrainStep(const Matrix& inputs, const OutputLoss& loss, float learning_rate);
  // The same on the mean squared error against `targets`.
  float TrainStep(const Matrix& inputs, const Eigen::VectorXf& targets, float learning_rate);

  absl::Status Save(const std::string& path) const;
  static absl::StatusOr<Mlp> Load(const std::string& path);

  // Every weight and bias (1 - share) of `a`'s plus `share` of `b`'s, `a`'s metadata; the two
  // must have the same sizes. Two networks trained one from the other lie close enough for
  // their average to play, and it can play better than either (weight averaging).
  static absl::StatusOr<Mlp> Blend(const Mlp& a, const Mlp& b, float share);

 private:
  struct Layer {
    Matrix weights;  // out x in
    Eigen::VectorXf bias;
    Matrix weights_m, weights_v;  // Adam moments
    Eigen::VectorXf bias_m, bias_v;
  };
  // The output of layers first_layer.. for the activations entering first_layer.
  Eigen::VectorXf ForwardFrom(const Matrix& inputs, size_t first_layer) const;

  std::vector<int> sizes_;
  std::vector<Layer> layers_;
  int steps_ = 0;
};

}  // namespace gavel::learn
