// A training run: creation, steps and the optimisers, live changes of settings, probe maps,
// held-out evaluation, weights as bytes, and a sentence's attention.
//
// [SECTION] Index
//   [SECTION] Creation and reset
//   [SECTION] Steps and the optimisers
//   [SECTION] Changing settings on a running training
//   [SECTION] Probe maps and held-out examples
//   [SECTION] Weights as bytes
//   [SECTION] Sentences
#include "smlab/train/run.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace smlab::train {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Adam's constants (Kingma & Ba 2015, their defaults).
constexpr double adam_beta1 = 0.9, adam_beta2 = 0.999, adam_epsilon = 1e-8;

// The settings whose change starts the run again: they change the task, the data or a shape
// other than d_k.
bool needs_restart(const Settings& a, const Settings& b) {
  return a.task != b.task || a.seq_len != b.seq_len || a.vocab != b.vocab || a.model_dim != b.model_dim ||
         a.heads != b.heads || a.layers != b.layers || a.seed != b.seed;
}

}  // namespace

Result<void> check_corpus(const Settings& s, const Corpus* corpus) {
  if (s.task != Task::language) return {};
  if (corpus == nullptr) return Error::usage("task=language needs a corpus: none was given");
  // Training windows need L + 1 tokens in the first nine tenths, held-out ones in the last tenth.
  const int held_out = static_cast<int>(corpus->tokens.size()) - corpus->held_out_from;
  if (held_out < s.seq_len + 1 || corpus->held_out_from < s.seq_len + 1)
    return Error::usage("seq_len=" + std::to_string(s.seq_len) + " is too long for the corpus: its held-out part has " +
                        std::to_string(held_out) + " characters; allowed up to " +
                        std::to_string(std::min(held_out, corpus->held_out_from) - 1));
  return {};
}

// [SECTION] Creation and reset

Result<Run> Run::create(const Settings& settings, std::shared_ptr<const Corpus> corpus) {
  if (Result<void> invalid = validate(settings); !invalid.ok()) return invalid.error();
  if (Result<void> bad = check_corpus(settings, corpus.get()); !bad.ok()) return bad.error();
  Run run;
  run.settings_ = settings;
  run.corpus_ = std::move(corpus);  // kept for a later change to the language task
  run.start();
  return run;
}

void Run::start() {
  layout_ = make_layout(model_shape(settings_, corpus_.get()));
  weights_.assign(layout_.parameter_count, 0.0);
  initialize(weights_, layout_, settings_);
  gradients_.assign(layout_.parameter_count, 0.0);
  first_moment_.assign(layout_.parameter_count, 0.0);
  second_moment_.assign(layout_.parameter_count, 0.0);
  adam_steps_ = 0;
  steps_ = 0;
  history_.clear();
  first_nonfinite_.reset();
  probe_ = make_probe(settings_, corpus_.get());
}

void Run::reset() { start(); }

// [SECTION] Steps and the optimisers

namespace {

// The largest value of `measure` (ideal_match or ideal_agreement) over every layer and head of a
// traced probe; NaN when any map gives NaN.
double best_head(const Trace& traced, const Probe& probe, double (*measure)(const std::vector<double>&, const Probe&)) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const std::vector<double>& map : traced.weights) {
    const double value = measure(map, probe);
    if (std::isnan(value)) return value;
    best = std::isnan(best) ? value : std::max(best, value);
  }
  return best;
}

}  // namespace

int Run::step(int count, const std::stop_token& stop) {
  Trace traced;
  for (int n = 0; n < count; ++n) {
    if (stop.stop_requested()) return n;
    batch_.resize(at(settings_.batch));
    for (int i = 0; i < settings_.batch; ++i)
      draw_example(batch_[at(i)], settings_, corpus_.get(), DataStream::training,
                   static_cast<std::uint64_t>(steps_) * Limits::batch_max + static_cast<std::uint64_t>(i));
    const BatchResult result = forward_backward(gradients_, workspace_, weights_, layout_, settings_, batch_,
                                                {.max_threads = max_threads_, .stop = stop});
    // A stop inside the step abandons it: the weights, moments and history are those of step n.
    if (result.cancelled || !trace(traced, weights_, layout_, settings_, probe_.example, stop)) return n;

    StepMetrics metrics;
    metrics.step = steps_ + 1;
    metrics.loss = result.loss;
    metrics.accuracy = result.accuracy;
    metrics.grad_norm_q = result.grad_norm_q;
    metrics.grad_norm_k = result.grad_norm_k;
    const double rows = static_cast<double>(std::max<long long>(result.stats.rows, 1));
    metrics.entropy = result.stats.entropy_sum / rows;
    metrics.max_weight = result.stats.max_weight_sum / rows;
    metrics.saturated_fraction = static_cast<double>(result.stats.saturated_rows) / rows;
    metrics.probe_match = best_head(traced, probe_, ideal_match);
    metrics.probe_agreement = best_head(traced, probe_, ideal_agreement);
    metrics.skipped = !result.finite;
    // Everything that can fail (allocate) is done: from here on the step cannot stop half-way.
    history_.reserve(history_.size() + 1);
    if (result.finite)
      apply_update();
    else if (!first_nonfinite_)
      first_nonfinite_ = metrics.step;
    history_.push_back(metrics);
    ++steps_;
  }
  return count;
}

void Run::apply_update() {
  const double rate = settings_.learning_rate;
  if (settings_.optimizer == Optimizer::sgd) {
    // θ ← θ − α g
    for (std::size_t i = 0; i < weights_.size(); ++i) weights_[i] -= rate * gradients_[i];
    return;
  }
  // Adam: m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g², θ ← θ − α m̂/(√v̂ + ε) with the bias-corrected
  // m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ).
  ++adam_steps_;
  const double correction1 = 1.0 - std::pow(adam_beta1, adam_steps_);
  const double correction2 = 1.0 - std::pow(adam_beta2, adam_steps_);
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    const double g = gradients_[i];
    first_moment_[i] = adam_beta1 * first_moment_[i] + (1.0 - adam_beta1) * g;
    second_moment_[i] = adam_beta2 * second_moment_[i] + (1.0 - adam_beta2) * g * g;
    const double m_hat = first_moment_[i] / correction1;
    const double v_hat = second_moment_[i] / correction2;
    weights_[i] -= rate * m_hat / (std::sqrt(v_hat) + adam_epsilon);
  }
}

// [SECTION] Changing settings on a running training

Result<Effect> Run::change(const Settings& next) {
  if (Result<void> invalid = validate(next); !invalid.ok()) return invalid.error();
  if (Result<void> bad = check_corpus(next, corpus_.get()); !bad.ok()) return bad.error();
  if (needs_restart(settings_, next)) {
    settings_ = next;
    start();
    return Effect::restart;
  }
  Effect effect = Effect::live;
  if (next.optimizer != settings_.optimizer) {
    // Moments of one optimiser mean nothing to the other: start them again.
    std::fill(first_moment_.begin(), first_moment_.end(), 0.0);
    std::fill(second_moment_.begin(), second_moment_.end(), 0.0);
    adam_steps_ = 0;
  }
  if (next.init_scale != settings_.init_scale) {
    // W_Q and W_K were drawn as init_scale·z/√D: multiply by new/old, which at step 0 gives the
    // draws of a run created at the new scale (to rounding).
    const double ratio = next.init_scale / settings_.init_scale;
    for (const Tensor& t : layout_.tensors)
      if (t.role == TensorRole::query || t.role == TensorRole::key)
        for (std::size_t i = 0; i < t.size(); ++i) weights_[t.offset + i] *= ratio;
    effect = Effect::rescale;
  }
  if (next.key_dim != settings_.key_dim) {
    reshape_key_dim(next);
    effect = std::max(effect, Effect::reshape);
  }
  settings_ = next;
  return effect;
}

void Run::reshape_key_dim(const Settings& next) {
  const Layout old_layout = layout_;
  const std::vector<double> old_weights = weights_, old_first = first_moment_, old_second = second_moment_;
  layout_ = make_layout(model_shape(next, corpus_.get()));
  weights_.assign(layout_.parameter_count, 0.0);
  first_moment_.assign(layout_.parameter_count, 0.0);
  second_moment_.assign(layout_.parameter_count, 0.0);
  gradients_.assign(layout_.parameter_count, 0.0);
  for (std::size_t n = 0; n < layout_.tensors.size(); ++n) {
    const Tensor& t = layout_.tensors[n];
    const Tensor& old = old_layout.tensors[n];  // the same tensor: only the widths of W_Q, W_K differ
    for (int r = 0; r < t.rows; ++r)
      for (int c = 0; c < t.cols; ++c) {
        const std::size_t to = t.offset + at(r) * at(t.cols) + at(c);
        if (c < old.cols) {
          const std::size_t from = old.offset + at(r) * at(old.cols) + at(c);
          weights_[to] = old_weights[from];
          first_moment_[to] = old_first[from];
          second_moment_[to] = old_second[from];
        } else {
          weights_[to] = initial_weight(next, t, r, c);
        }
      }
  }
}

// [SECTION] Probe maps and held-out examples

ProbeMaps Run::probe_maps() const {
  Trace traced;
  trace(traced, weights_, layout_, settings_, probe_.example);
  ProbeMaps maps;
  maps.step = steps_;
  maps.length = traced.length;
  maps.layers = traced.layers;
  maps.heads = traced.heads;
  maps.labels = probe_.labels;
  maps.ideal = probe_.ideal;
  maps.ideal_rows = probe_.ideal_rows;
  maps.row = probe_.row;
  const std::size_t L = at(traced.length);
  for (const std::vector<double>& map : traced.weights) {
    maps.weights.insert(maps.weights.end(), map.begin(), map.end());
    maps.match.push_back(ideal_match(map, probe_));
    maps.agreement.push_back(ideal_agreement(map, probe_));
    for (std::size_t j = 0; j < L; ++j) {
      const double s = map[at(probe_.row) * L + j];
      maps.row_weights.push_back(s);
      maps.row_slopes.push_back(s * (1.0 - s));
    }
  }
  return maps;
}

BatchResult Run::held_out(int examples) {
  std::vector<Example> batch(at(std::max(examples, 1)));
  for (std::size_t i = 0; i < batch.size(); ++i)
    draw_example(batch[i], settings_, corpus_.get(), DataStream::held_out, i);
  return forward_only(workspace_, weights_, layout_, settings_, batch, {.max_threads = max_threads_});
}

// [SECTION] Weights as bytes
//
// Layout: "smlab-train-weights 1\n", then "key=value\n" lines (step, parameters, vocabulary, and
// every setting of the key table), an empty line, parameters × 8 bytes (IEEE binary64, little
// endian, the layout's order), and the CRC-32 (zlib's) of everything before it, little endian.

namespace {

constexpr std::string_view weights_magic = "smlab-train-weights 1\n";
constexpr std::size_t header_max = 4096;

std::uint32_t crc_of(std::span<const std::uint8_t> bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed it in pieces.
  for (std::size_t done = 0; done < bytes.size();) {
    const std::size_t piece = std::min<std::size_t>(bytes.size() - done, 1u << 30);
    crc = crc32(crc, bytes.data() + done, static_cast<uInt>(piece));
    done += piece;
  }
  return static_cast<std::uint32_t>(crc);
}

void put_le(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}
std::uint64_t get_le(const std::uint8_t* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

std::string hex32(std::uint32_t value) {
  constexpr char digits[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 7; i >= 0; --i, value >>= 4) out[at(i)] = digits[value & 0xF];
  return out;
}

}  // namespace

std::vector<std::uint8_t> Run::save() const {
  std::string header(weights_magic);
  header += "step=" + std::to_string(steps_) + "\n";
  header += "parameters=" + std::to_string(layout_.parameter_count) + "\n";
  const bool language = settings_.task == Task::language;
  header += "vocabulary=" + (language ? hex32(corpus_->fingerprint) : std::string("none")) + "\n";
  for (const SettingKey& key : setting_keys())
    header += std::string(key.name) + "=" + *get_setting(settings_, key.name) + "\n";
  header += "\n";
  std::vector<std::uint8_t> out(header.begin(), header.end());
  out.reserve(out.size() + 8 * weights_.size() + 4);
  for (double w : weights_) put_le(out, std::bit_cast<std::uint64_t>(w), 8);
  put_le(out, crc_of(out), 4);
  return out;
}

Result<Run> Run::load(std::span<const std::uint8_t> bytes, std::string_view file,
                      std::shared_ptr<const Corpus> corpus) {
  const std::string name(file);
  const auto fail = [&](const std::string& what) { return Error::usage(name + ": " + what); };
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), std::min(bytes.size(), header_max));
  if (!text.starts_with(weights_magic))
    return fail("not a Softmax Lab weights file (it does not start with 'smlab-train-weights 1')");
  const std::size_t end = text.find("\n\n");
  if (end == std::string_view::npos)
    return fail("the header has no end within " + std::to_string(header_max) + " bytes");

  Settings settings;
  long long step = -1, parameters = -1;
  std::string vocabulary;
  std::vector<std::string> seen;
  for (std::size_t at_line = weights_magic.size(); at_line <= end;) {
    const std::size_t line_end = text.find('\n', at_line);
    const std::string_view line = text.substr(at_line, line_end - at_line);
    at_line = line_end + 1;
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos)
      return fail("header line '" + std::string(line.substr(0, 40)) + "' is not key=value");
    const std::string key(line.substr(0, equals));
    const std::string_view value = line.substr(equals + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return fail("the header names '" + key.substr(0, 40) + "' twice");
    seen.push_back(key);
    const auto whole = [&](long long& out) {
      out = 0;
      for (char c : value) {
        if (c < '0' || c > '9' || out > (1LL << 50)) return false;
        out = out * 10 + (c - '0');
      }
      return !value.empty();
    };
    if (key == "step") {
      if (!whole(step) || step > std::numeric_limits<int>::max())
        return fail("step=" + std::string(value.substr(0, 40)) + " is not a step count");
    } else if (key == "parameters") {
      if (!whole(parameters)) return fail("parameters=" + std::string(value.substr(0, 40)) + " is not a count");
    } else if (key == "vocabulary") {
      vocabulary = std::string(value.substr(0, 40));
    } else if (find_setting_key(key) != nullptr) {
      if (Result<void> set = set_setting_unchecked(settings, key, value); !set.ok()) return fail(set.error().message);
    } else {
      return fail("unknown header key '" + key.substr(0, 40) + "'");
    }
  }
  for (const SettingKey& key : setting_keys())
    if (std::find(seen.begin(), seen.end(), key.name) == seen.end())
      return fail("the header lacks the setting '" + std::string(key.name) + "'");
  if (step < 0 || parameters < 0 || vocabulary.empty()) return fail("the header lacks step, parameters or vocabulary");
  if (Result<void> invalid = validate(settings); !invalid.ok()) return fail(invalid.error().message);
  if (settings.task == Task::language) {
    if (corpus == nullptr) return fail("a language model's weights need its corpus: none was given");
    if (vocabulary != hex32(corpus->fingerprint))
      return fail("trained on another vocabulary (fingerprint " + vocabulary + "; this corpus has " +
                  hex32(corpus->fingerprint) + ")");
  } else if (vocabulary != "none") {
    return fail("vocabulary=" + vocabulary + " is not allowed for task " + std::string(task_name(settings.task)) +
                ": allowed none");
  }
  if (Result<void> bad = check_corpus(settings, corpus.get()); !bad.ok()) return fail(bad.error().message);

  const Layout layout = make_layout(model_shape(settings, corpus.get()));
  if (static_cast<unsigned long long>(parameters) != layout.parameter_count)
    return fail("parameters=" + std::to_string(parameters) + " does not match its settings, which need " +
                std::to_string(layout.parameter_count));
  const std::size_t data_at = end + 2;
  if (bytes.size() != data_at + 8 * layout.parameter_count + 4)
    return fail("holds " + std::to_string(bytes.size()) + " bytes; its header says " +
                std::to_string(data_at + 8 * layout.parameter_count + 4));
  if (crc_of(bytes.first(bytes.size() - 4)) != get_le(bytes.data() + bytes.size() - 4, 4))
    return fail("checksum mismatch: the file is damaged");

  Run run;
  run.settings_ = settings;
  run.corpus_ = std::move(corpus);
  run.start();
  for (std::size_t i = 0; i < layout.parameter_count; ++i) {
    const double w = std::bit_cast<double>(get_le(bytes.data() + data_at + 8 * i, 8));
    if (!std::isfinite(w)) return fail("weight " + std::to_string(i) + " is not finite");
    run.weights_[i] = w;
  }
  run.steps_ = static_cast<int>(step);
  return run;
}

// [SECTION] Sentences

Result<SentenceAttention> Run::inspect(std::span<const int> tokens) const {
  const int channels = static_cast<int>(layout_.shape.channel_vocab.size());
  const int length = static_cast<int>(tokens.size()) / channels;
  if (tokens.size() % at(channels) != 0 || length < 1 || length > Limits::seq_len_max)
    return Error::usage("a sentence of " + std::to_string(tokens.size()) + " tokens is not allowed: allowed 1 to " +
                        std::to_string(Limits::seq_len_max) + " positions of " + std::to_string(channels) +
                        " token(s) each");
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const int vocab = layout_.shape.channel_vocab[i % at(channels)];
    if (tokens[i] < 0 || tokens[i] >= vocab)
      return Error::usage("token " + std::to_string(tokens[i]) + " at position " + std::to_string(i / at(channels)) +
                          " is out of range: allowed 0 to " + std::to_string(vocab - 1));
  }
  Example example;
  example.tokens.assign(tokens.begin(), tokens.end());
  SentenceAttention out;
  trace(out.trace, weights_, layout_, settings_, example);
  const int V = layout_.shape.output_vocab;
  out.next_token.resize(at(length) * at(V));
  for (int t = 0; t < length; ++t) {
    const double* z = out.trace.readout_logits.data() + at(t) * at(V);
    double largest = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int v = 0; v < V; ++v) largest = std::max(largest, z[v]);
    for (int v = 0; v < V; ++v) sum += std::exp(z[v] - largest);
    for (int v = 0; v < V; ++v) out.next_token[at(t) * at(V) + at(v)] = std::exp(z[v] - largest) / sum;
  }
  out.labels = token_labels(settings_, corpus_.get(), example.tokens);
  return out;
}

Result<SentenceAttention> Run::inspect_text(std::string_view utf8) const {
  if (settings_.task != Task::language)
    return Error::usage("a text sentence needs the language task: task=" + std::string(task_name(settings_.task)));
  const std::vector<int> tokens = corpus_->encode(utf8);
  if (tokens.empty() || tokens.size() > at(Limits::seq_len_max))
    return Error::usage("a sentence of " + std::to_string(tokens.size()) + " characters is not allowed: allowed 1 to " +
                        std::to_string(Limits::seq_len_max));
  return inspect(tokens);
}

}  // namespace smlab::train
