// Reads assets/training-reference.json back (for the reference's tests and the training-reference
// tool's --tables-from): each experiment by its id in the code's table, every run's per-seed
// numbers as printed (they parse back to the same bits), and the summaries made again from them.
#pragma once

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smlab/labs/training_reference.hpp"

namespace smlab::training_reference_file {

// A number as the file prints it: null for NaN, "inf" beyond the budget.
inline double read_number(const nlohmann::json& value) {
  if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (value.is_string())
    return value.get<std::string>() == "inf" ? std::numeric_limits<double>::infinity()
                                             : -std::numeric_limits<double>::infinity();
  return value.get<double>();
}

// The file's seeds of one run, as measure_reference_seed gives them.
inline std::vector<ReferenceSeed> read_seeds(const nlohmann::json& run, std::uint64_t first_seed, bool whole) {
  const nlohmann::json& p = run.at("per_seed");
  std::vector<ReferenceSeed> seeds(p.at("steps_to_90").size());
  for (std::size_t s = 0; s < seeds.size(); ++s) {
    ReferenceSeed& seed = seeds[s];
    seed.seed = first_seed + s;
    seed.steps_to_90 = p.at("steps_to_90")[s].get<int>();
    seed.start_loss = read_number(p.at("start_loss")[s]);
    seed.start_max_weight = read_number(p.at("start_max_weight")[s]);
    seed.start_saturated = read_number(p.at("start_saturated")[s]);
    seed.start_grad_norm_q = read_number(p.at("start_grad_norm_q")[s]);
    seed.start_grad_norm_k = read_number(p.at("start_grad_norm_k")[s]);
    if (whole) {
      seed.final_accuracy = read_number(p.at("final_accuracy")[s]);
      seed.final_loss = read_number(p.at("final_loss")[s]);
      seed.probe_match = read_number(p.at("probe_match")[s]);
      seed.first_nonfinite = p.at("first_nonfinite")[s].get<int>();
      seed.skipped_fraction = read_number(p.at("skipped_fraction")[s]);
    } else {
      seed.final_accuracy = seed.final_loss = seed.probe_match = seed.skipped_fraction =
          std::numeric_limits<double>::quiet_NaN();
    }
  }
  return seeds;
}

// The whole file; Error::usage naming what is wrong (an experiment the code no longer has, a file
// that is not JSON).
inline Result<TrainingReference> read(const std::string& text) {
  const nlohmann::json file = nlohmann::json::parse(text, nullptr, false);
  if (file.is_discarded()) return Error::usage("the training reference is not valid JSON");
  try {
    TrainingReference out;
    out.first_seed = file.at("first_seed").get<std::uint64_t>();
    out.seeds = file.at("seeds").get<int>();
    for (const nlohmann::json& fx : file.at("experiments")) {
      const std::string id = fx.at("id").get<std::string>();
      const ReferenceExperiment* experiment = find_reference_experiment(id);
      if (experiment == nullptr)
        return Error::usage("the training reference has an experiment '" + id + "' the code has not");
      ReferenceExperimentResult result;
      result.experiment = experiment;
      for (const nlohmann::json& fr : fx.at("runs")) {
        ReferenceRunResult run;
        run.name = fr.at("name").get<std::string>();
        run.assignments = fr.at("set").get<std::vector<std::string>>();
        run.seeds = read_seeds(fr, out.first_seed, experiment->whole);
        result.runs.push_back(std::move(run));
      }
      for (ReferenceRunResult& run : result.runs) summarize_reference_run(run, &result.runs.front(), experiment->whole);
      out.experiments.push_back(std::move(result));
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    return Error::usage(std::string("the training reference is not as written: ") + e.what());
  }
}

}  // namespace smlab::training_reference_file
