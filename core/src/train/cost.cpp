// The cost of a training step from the model's sizes (cost.hpp); the counts follow model.cpp's
// passes product by product.
#include "smlab/train/cost.hpp"

#include <algorithm>

#include "smlab/train/model.hpp"
#include "smlab/train/tasks.hpp"

namespace smlab::train {

StepWork step_work(const Settings& settings, const Corpus* corpus) {
  const ModelShape shape = model_shape(settings, corpus);
  const TaskShape task = task_shape(settings, corpus);
  const double L = shape.length, D = shape.model_dim, dk = shape.key_dim, dv = shape.value_dim, H = shape.heads;
  const double V = shape.output_vocab, targets = std::max(task.targets_per_example, 1);
  // One example's forward pass whose last layer computes `last_rows` query rows (model.cpp forward):
  // per head K and V of every row, Q of the rows computed, their logits and A·V, and O·W_O; then
  // the readout at the targets.
  const auto forward = [&](double last_rows, double readout_rows) {
    double multiply_adds = readout_rows * D * V, weights = 0.0;
    for (int layer = 0; layer < shape.layers; ++layer) {
      const double R = layer + 1 < shape.layers ? L : last_rows;
      multiply_adds += H * (L * D * (dk + dv) + R * D * dk + R * L * (dk + dv) + R * dv * D);
      weights += H * R * L;
    }
    return std::pair{multiply_adds, weights};
  };
  const double batch = settings.batch;
  // The last layer computes every row where a naive softmax or fp16/bf16 can overflow in a row no
  // target reads (model.hpp, LastLayerRows), only the rows with a target elsewhere.
  const double last_rows = computes_every_row(settings) ? L : targets;
  const auto [example_products, example_weights] = forward(last_rows, targets);
  const auto [probe_products, probe_weights] = forward(L, L);  // the probe's trace: every row
  StepWork work;
  // Backward: each forward product has two (its two inputs' gradients), model.cpp backward().
  work.multiply_adds = batch * 3.0 * example_products + probe_products;
  work.softmax_weights = batch * example_weights + probe_weights;
  // Doubles of parameter size streamed per step: the transposed weights (read and written), every
  // chunk's gradient zeroed, then summed into the step's (read, read, write), and the update (SGD
  // reads two and writes one; Adam reads four and writes three).
  const double parameters = static_cast<double>(make_layout(shape).parameter_count);
  const double chunks = std::min(batch, 8.0);
  const double update = settings.optimizer == Optimizer::adam ? 7.0 : 3.0;
  work.bytes = 8.0 * parameters * (2.0 + chunks * 4.0 + update);
  return work;
}

double step_seconds(const Settings& settings, const Corpus* corpus, const CostRates& rates) {
  const StepWork work = step_work(settings, corpus);
  const bool hardware = settings.precision == Format::fp64 || settings.precision == Format::fp32;
  const double softmax_rate =
      hardware ? rates.softmax_weights_per_second_hardware : rates.softmax_weights_per_second_emulated;
  return rates.step_overhead_seconds + work.multiply_adds / rates.multiply_adds_per_second +
         work.softmax_weights / softmax_rate + work.bytes / rates.bytes_per_second;
}

double setup_seconds(const Settings& settings, const Corpus* corpus, const CostRates& rates) {
  Settings probe_only = settings;
  probe_only.batch = 0;  // step_work's probe share: one traced pass of every row
  const StepWork trace = step_work(probe_only, corpus);
  const double parameters = static_cast<double>(make_layout(model_shape(settings, corpus)).parameter_count);
  return parameters / rates.weights_drawn_per_second + 2.0 * trace.multiply_adds / rates.multiply_adds_per_second;
}

}  // namespace smlab::train
