// training-reference: measures the training lab's reference experiments over a group of seeds
// (smlab/labs/training_reference.hpp) and writes assets/training-reference.json, printing a table
// of the summaries docs/TRAINING.md quotes. The shipped file is regenerated with
//   build/tests/training-reference --write assets/training-reference.json
// (seeds 1-32; --first-seed 1001 gives the second group the slow test checks against).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <sstream>

#include "smlab/labs/training_reference.hpp"
#include "training_reference_file.hpp"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: training-reference [--write FILE] [--first-seed N] [--seeds N] [--only ID[,ID...]]\n"
               "       training-reference --tables-from FILE\n"
               "  measures the training reference (seeds 1-32 by default) and prints its summaries;\n"
               "  --write FILE also writes the JSON (assets/training-reference.json);\n"
               "  --tables-from FILE prints docs/TRAINING.md's tables of a written file\n");
  return 2;
}

std::string steps_text(double value) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return "never";
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", value);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string write_path;
  std::uint64_t first_seed = 1;
  int seeds = 32;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--tables-from") {
      std::ifstream file(value);
      std::stringstream text;
      text << file.rdbuf();
      const smlab::Result<smlab::TrainingReference> read = smlab::training_reference_file::read(text.str());
      if (!file || !read.ok()) {
        std::fprintf(stderr, "training-reference: %s: %s\n", value.c_str(),
                     read.ok() ? "cannot read it" : read.error().message.c_str());
        return 2;
      }
      std::fputs(smlab::training_reference_tables(*read).c_str(), stdout);
      return 0;
    }
    if (arg == "--write") {
      write_path = value;
    } else if (arg == "--first-seed") {
      first_seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (arg == "--seeds") {
      seeds = std::atoi(value.c_str());
    } else if (arg == "--only") {
      for (std::size_t start = 0; start <= value.size();) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        only.push_back(value.substr(start, comma - start));
        start = comma + 1;
      }
    } else {
      return usage();
    }
  }
  if (seeds < 2 || first_seed == 0) return usage();
  const auto start = std::chrono::steady_clock::now();
  const smlab::Result<smlab::TrainingReference> reference = smlab::evaluate_training_reference(first_seed, seeds, only);
  if (!reference.ok()) {
    std::fprintf(stderr, "training-reference: %s\n", reference.error().message.c_str());
    return 2;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const smlab::ReferenceExperimentResult& experiment : reference->experiments) {
    std::printf("%s (%d steps): %s\n", experiment.experiment->id.c_str(), experiment.experiment->steps,
                experiment.experiment->description.c_str());
    for (const smlab::ReferenceRunResult& run : experiment.runs) {
      const auto& s = run.steps_to_90;
      std::printf(
          "  %s: never %d/%d; steps to 90 %% median %s (IQR %s-%s); step 1: saturated %.3f, "
          "max weight %.3f, |dL/dQ| %.3g (x%.2f of A, >2 on %d)",
          run.name.c_str(), run.never_90.count, run.never_90.n, steps_text(s.median).c_str(), steps_text(s.q1).c_str(),
          steps_text(s.q3).c_str(), run.start_saturated.median, run.start_max_weight.median,
          run.start_grad_norm_q.median, run.start_grad_q_over_a.median, run.grad_q_over_a_above_2.count);
      if (experiment.experiment->whole)
        std::printf(
            "; final accuracy %.3f (IQR %.3f-%.3f), match %.3f, skipped %.3f, first non-finite %s "
            "(%d seeds, %d at step 1)",
            run.final_accuracy.median, run.final_accuracy.q1, run.final_accuracy.q3, run.probe_match.median,
            run.skipped_fraction.median, steps_text(run.first_nonfinite.median).c_str(), run.nonfinite_seeds.count,
            run.nonfinite_at_step_1.count);
      std::printf("\n");
    }
  }
  std::printf("%d seeds from %llu in %.1f s\n", seeds, static_cast<unsigned long long>(first_seed), seconds);
  if (!write_path.empty()) {
    std::ofstream file(write_path, std::ios::binary | std::ios::trunc);
    file << smlab::training_reference_json(*reference);
    if (!file.good()) {
      std::fprintf(stderr, "training-reference: cannot write %s\n", write_path.c_str());
      return 3;
    }
    std::printf("wrote %s\n", write_path.c_str());
  }
  return 0;
}
