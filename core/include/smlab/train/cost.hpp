// What a training costs before it starts: the work of one step counted from the model's sizes
// (multiply-adds of the dense kernels, softmax weights, bytes of parameter-sized arrays streamed),
// and seconds on this machine from rates measured on it (docs/TRAINING.md, "What a run costs").
// Runs that would take hours are refused with this estimate instead of started.
#pragma once

#include <cstdint>

#include "smlab/train/corpus.hpp"
#include "smlab/train/settings.hpp"

namespace smlab::train {

// The work of one Run::step of `settings` (the language task's shape from `corpus`):
//   multiply_adds    forward and backward over the batch (the backward pass's products are twice
//                    the forward's: model.cpp derives each), and the probe's traced forward pass
//   softmax_weights  attention weights computed by softmax_row, forward (batch and probe)
//   bytes            parameter-sized arrays streamed outside the kernels: the transposed weights,
//                    each chunk's gradient zeroed and summed, and the optimiser's update
struct StepWork {
  double multiply_adds = 0.0;
  double softmax_weights = 0.0;
  double bytes = 0.0;
};
StepWork step_work(const Settings& settings, const Corpus* corpus = nullptr);

// Rates of one core of this machine, the 2-core machine the project is built on, shared with other
// work (load 8 to 15): fitted with `train-driver cost` (bench/train_driver.cpp) to the wall time of
// steps of seven models at load 11, then lowered by a fifth (conservative: an estimate may be high,
// it should not be low). docs/TRAINING.md, "What a run costs", gives the measurements. On an idle
// core the estimates are up to 9 times the time taken.
struct CostRates {
  double multiply_adds_per_second = 0.8e9;
  // softmax_row per weight: fp64 and fp32 round in hardware; fp16, bf16 and the fp8 formats in
  // software (round_to), several times per weight.
  double softmax_weights_per_second_hardware = 6e6;
  double softmax_weights_per_second_emulated = 1.5e6;
  double bytes_per_second = 2e9;
  double step_overhead_seconds = 20e-6;   // drawing the batch, the metrics, the history
  double weights_drawn_per_second = 2e6;  // Run::create's initial draws (one normal per parameter)
};

// Seconds of one step of `settings` on one core.
double step_seconds(const Settings& settings, const Corpus* corpus = nullptr, const CostRates& rates = {});

// Seconds to create a run of `settings` (its weights drawn) and, at the end, to summarise it (the
// probe's and a sentence's traced passes), on one core.
double setup_seconds(const Settings& settings, const Corpus* corpus = nullptr, const CostRates& rates = {});

}  // namespace smlab::train
