// Helpers shared by the lab tests: print a row or a Params value in failure
// messages (17 digits, so a failing case can be replayed) and a plain softmax.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "smlab/params.hpp"
#include "smlab/softmax.hpp"

namespace smlab::lab_test {

inline std::string show(const std::vector<double>& row) {
  std::ostringstream out;
  out.precision(17);
  out << "[";
  for (std::size_t i = 0; i < row.size(); ++i) out << (i ? ", " : "") << row[i];
  out << "]";
  return out.str();
}

// Every setting a lab of these tests reads.
inline std::string describe(const Params& params) {
  std::ostringstream out;
  out.precision(17);
  out << "T=" << params.temperature << " score_scale=" << params.score_scale << " alpha=" << params.alpha
      << " nudge=" << params.nudge << " L=" << params.seq_len << " d_k=" << params.key_dim << " row=" << params.row
      << " scaled=" << params.scaled << " scores=" << show(params.scores);
  return out.str();
}

inline std::vector<double> softmax_of(const std::vector<double>& scores, double temperature) {
  std::vector<double> out(scores.size());
  softmax(out, scores, temperature);
  return out;
}

}  // namespace smlab::lab_test
