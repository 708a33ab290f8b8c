// The training tasks' examples, drawn from a seed, and the probe input with the attention map a
// model that solved the task would draw for it (the "ideal map").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "smlab/train/corpus.hpp"
#include "smlab/train/settings.hpp"

namespace smlab::train {

// What a task feeds the model. Each position carries one token per input channel; the channels'
// embeddings are summed (recall: channel 0 the pair's key, channel 1 its value or the query mark).
struct TaskShape {
  std::vector<int> channel_vocab;  // embedding table sizes, one per channel
  int output_vocab = 0;            // classes of the readout
  int targets_per_example = 0;     // positions with a target in every example
};
TaskShape task_shape(const Settings& settings, const Corpus* corpus);  // corpus: language only

// One example: L positions × channels tokens, and the positions whose next output is scored.
struct Example {
  std::vector<int> tokens;            // row-major L × channels
  std::vector<int> target_positions;  // increasing, each in [0, L)
  std::vector<int> targets;           // the class each of them must output
};

// Which examples: training step s draws its batch's example i from (seed, training, s·256 + i),
// so a larger batch keeps the smaller batch's first examples; held-out examples come from their
// own stream (and, for the language model, from the held-out last tenth of the corpus).
enum class DataStream : std::uint64_t { training = 0x747261696E, held_out = 0x68656C64, probe = 0x70726F6265 };
std::uint64_t example_seed(const Settings& settings, DataStream stream, std::uint64_t index);

// Draws one example into `out` (its vectors reused). `corpus` is needed by the language task only.
void draw_example(Example& out, const Settings& settings, const Corpus* corpus, DataStream stream, std::uint64_t index);

// Labels of a token sequence (L × channels ids) for maps and axes: recall "7→3" (a pair) and
// "7→?" (its query), copy/reverse/maximum the symbol or "?" for the mark, language the character.
std::vector<std::string> token_labels(const Settings& settings, const Corpus* corpus, const std::vector<int>& tokens);

// The probe: one fixed input whose attention maps the lab shows as training goes.
struct Probe {
  Example example;
  std::vector<std::string> labels;  // L token labels, e.g. "7→3" (recall pair), "7→?" (its query)
  // The ideal map: L×L row-major; for each row with ideal_rows[i] = 1, the weights of a model that
  // solved the task (one-hot on the key to attend to). Rows the task does not score are 0 there.
  std::vector<double> ideal;
  std::vector<unsigned char> ideal_rows;
  int row = 0;  // the row whose S(1−S) points the lab shows: the (first) scored row
};
Probe make_probe(const Settings& settings, const Corpus* corpus);

// How close a map is to the ideal: the mean over the ideal's rows of Σ_j min(A_ij, I_ij), i.e.
// 1 − total-variation distance (1 = the ideal, 0 = no weight on the right key). NaN when the
// task has no ideal (the language model) or the map holds NaN. Shapes: both L×L.
double ideal_match(const std::vector<double>& map, const Probe& probe);
// The fraction of the ideal's rows whose largest weight falls on a key the ideal attends to. A
// model can answer right with a soft map (copy solves with a bump of ~0.6 on the right input), so
// this reads "attends to the right key" where ideal_match reads "how sharply". NaN as above.
double ideal_agreement(const std::vector<double>& map, const Probe& probe);

}  // namespace smlab::train
