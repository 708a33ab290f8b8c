// What a training run reads and writes: its settings as text, the weights as bytes (and every
// kind of bad bytes refused in one line), a sentence's .npz read back by the import code, and the
// language model's corpus.
#include <gtest/gtest.h>

#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "smlab/import.hpp"
#include "smlab/train/run.hpp"
#include "train_test_support.hpp"

namespace smlab::train {
namespace {

std::string text_of(const std::vector<std::uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }
std::vector<std::uint8_t> bytes_of(const std::string& text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

// The bytes with their trailing CRC-32 recomputed, so that a test reaches the check after it.
std::vector<std::uint8_t> with_fresh_checksum(std::vector<std::uint8_t> bytes) {
  if (bytes.size() < 4) return bytes;  // no checksum to renew
  bytes.resize(bytes.size() - 4);
  const auto crc =
      static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), bytes.data(), static_cast<uInt>(bytes.size())));
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
  return bytes;
}

// ─── Settings ────────────────────────────────────────────────────────────────────────────

TEST(TrainSettings, EveryKeyReadsBackWhatItWrites) {
  Settings s = default_settings(Task::language);
  s.temperature = 0.37, s.learning_rate = 1.5e-4, s.init_scale = 3.25, s.precision = Format::bf16;
  s.softmax = SoftmaxVariant::naive, s.optimizer = Optimizer::sgd, s.seed = (std::uint64_t{1} << 53) - 1;
  Settings read;
  for (const SettingKey& key : setting_keys()) {
    const std::string text = get_setting(s, key.name).value();
    ASSERT_TRUE(set_setting_unchecked(read, key.name, text).ok()) << key.name << "=" << text;
  }
  EXPECT_EQ(read, s) << train_test::describe(read);
  EXPECT_TRUE(validate(read).ok());
}

TEST(TrainSettings, BadValuesAreRefusedInOneLineNamingKeyAndValue) {
  struct Bad {
    const char* key;
    const char* value;
    const char* allowed;  // a part of the message
  };
  for (const Bad& bad : {Bad{"d_k", "0", "1 to 512"}, Bad{"d_k", "12.5", "1 to 512"}, Bad{"temperature", "0", "0.01"},
                         Bad{"temperature", "nan", "0.01"}, Bad{"precision", "fp8-e4m3", "fp64, fp32, fp16 or bf16"},
                         Bad{"softmax", "online", "naive or stable"}, Bad{"task", "sort", "recall, copy"},
                         Bad{"layers", "3", "1 to 2"}, Bad{"scaled", "maybe", "true or false"},
                         Bad{"seed", "-1", "0 to"}, Bad{"vocab", "4", "vocab from seq_len-1 = 8"},
                         Bad{"learning_rate", "1e9", "1e-06 to 10"}, Bad{"heads\n", "1", "allowed task"}}) {
    Settings s;
    const Result<void> set = set_setting(s, bad.key, bad.value);
    ASSERT_FALSE(set.ok()) << bad.key << "=" << bad.value;
    const std::string& message = set.error().message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find(bad.allowed), std::string::npos) << message;
    EXPECT_EQ(s, Settings{}) << "a refused value changed the settings: " << bad.key;
  }
}

TEST(TrainSettings, ALongerSequenceRaisesTheSymbolsRecallNeeds) {
  Settings s;
  ASSERT_TRUE(set_setting(s, "seq_len", "40").ok());
  EXPECT_EQ(s.vocab, 39);
  ASSERT_TRUE(set_setting(s, "task", "copy").ok());
  ASSERT_TRUE(set_setting(s, "vocab", "4").ok());       // copy draws with repetition: any vocab will do
  ASSERT_TRUE(set_setting(s, "task", "maximum").ok());  // distinct numbers again: vocab follows
  EXPECT_EQ(s.vocab, 39);
}

// ─── Weights as bytes ────────────────────────────────────────────────────────────────────

TEST(TrainWeights, SavedBytesLoadBackToTheSameRun) {
  for (Task task : {Task::recall, Task::language}) {
    Settings s = default_settings(task);
    s.layers = 2, s.heads = 2, s.temperature = 0.8;
    const auto corpus = task == Task::language ? train_test::small_corpus() : nullptr;
    train::Run run = train::Run::create(s, corpus).value();
    run.step(7);
    const std::vector<std::uint8_t> bytes = run.save();
    const Result<train::Run> loaded = train::Run::load(bytes, "w.smlab", corpus);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->settings(), s);
    EXPECT_EQ(loaded->steps_done(), 7);
    EXPECT_TRUE(std::equal(run.weights().begin(), run.weights().end(), loaded->weights().begin()));
    EXPECT_EQ(loaded->save(), bytes);
    // The probe maps, which depend on the weights and the settings alone, come back too.
    EXPECT_EQ(loaded->probe_maps().weights, run.probe_maps().weights);
  }
}

TEST(TrainWeights, BadBytesAreRefusedInOneLineNamingTheFile) {
  train::Run run = train::Run::create(Settings{}).value();
  const std::vector<std::uint8_t> good = run.save();
  const std::string text = text_of(good);
  const std::size_t header_end = text.find("\n\n") + 2;
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    changed.replace(changed.find(from), from.size(), to);
    return with_fresh_checksum(bytes_of(changed));
  };
  std::vector<std::uint8_t> flipped = good;
  flipped[header_end + 17] ^= 0x01;
  std::vector<std::uint8_t> nan_weight = good;
  const auto nan_bits = std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN());
  for (int i = 0; i < 8; ++i)
    nan_weight[header_end + 8 * 5 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(nan_bits >> (8 * i));
  struct Bad {
    const char* what;
    std::vector<std::uint8_t> bytes;
    const char* message_part;
  };
  const std::vector<Bad> cases = {
      {"empty", {}, "not a Softmax Lab weights file"},
      {"a PNG", bytes_of("\x89PNG\r\n\x1a\n...."), "not a Softmax Lab weights file"},
      {"no end of header", bytes_of("smlab-train-weights 1\nstep=0\n"), "no end"},
      {"truncated", std::vector<std::uint8_t>(good.begin(), good.end() - 9), "holds"},
      {"one byte longer",
       [&] {
         auto b = good;
         b.push_back(0);
         return b;
       }(),
       "holds"},
      {"a flipped bit", flipped, "checksum"},
      {"a NaN weight", with_fresh_checksum(nan_weight), "weight 5 is not finite"},
      {"another d_k", replaced("d_k=16", "d_k=17"), "parameters="},
      {"a bad value", replaced("d_k=16", "d_k=sixteen"), "d_k=sixteen"},
      {"an unknown key", replaced("batch=32", "batches=32"), "unknown header key 'batches'"},
      {"a missing key", replaced("batch=32\n", ""), "lacks the setting 'batch'"},
      {"a key twice", replaced("batch=32\n", "batch=32\nbatch=32\n"), "twice"},
      {"a vocabulary without a corpus", replaced("vocabulary=none", "vocabulary=12345678"), "vocabulary="},
      {"a language model without its corpus", replaced("task=recall", "task=language"), "corpus"},
  };
  for (const Bad& bad : cases) {
    const Result<train::Run> loaded = train::Run::load(bad.bytes, "weights.smlab");
    ASSERT_FALSE(loaded.ok()) << bad.what;
    const std::string& message = loaded.error().message;
    EXPECT_EQ(message.rfind("weights.smlab: ", 0), 0u) << bad.what << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << bad.what << ": " << message;
    EXPECT_NE(message.find(bad.message_part), std::string::npos) << bad.what << ": " << message;
  }
}

TEST(TrainWeights, ALanguageModelLoadsOnlyWithTheVocabularyItLearned) {
  const auto corpus = train_test::small_corpus();
  train::Run run = train::Run::create(default_settings(Task::language), corpus).value();
  const auto other =
      build_corpus(std::vector<std::string>(40, "A different text, with other letters: xyzzy!"), 1).value();
  const Result<train::Run> loaded = train::Run::load(run.save(), "lm.smlab", other);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("another vocabulary"), std::string::npos) << loaded.error().message;
}

// ─── A sentence as .npz, read back by the import code ────────────────────────────────────

TEST(TrainExport, SentenceNpzRoundTripsThroughTheImportCode) {
  Settings s = default_settings(Task::language);
  s.layers = 2, s.heads = 2;
  train::Run run = train::Run::create(s, train_test::small_corpus()).value();
  run.step(5);
  const SentenceAttention sentence = run.inspect_text("soft key value.").value();
  const Trace& t = sentence.trace;
  const std::vector<std::uint8_t> bytes = attention_npz(sentence);

  const ArchiveParse archive = parse_npz(bytes, "sentence.npz");
  ASSERT_TRUE(archive.ok()) << archive.error().message;
  const auto find = [&](const std::string& name) -> const NdArray& {
    for (const NdArray& a : *archive)
      if (a.name == name) return a;
    ADD_FAILURE() << "no array " << name;
    return archive->front();
  };
  const std::int64_t layers = t.layers, heads = t.heads, L = t.length;
  const auto expect_stacked = [&](const std::string& name, const std::vector<std::vector<double>>& per_head,
                                  std::int64_t cols) {
    const NdArray& a = find(name);
    ASSERT_EQ(a.shape, (std::vector<std::int64_t>{layers, heads, L, cols})) << name;
    std::size_t at = 0;
    for (const std::vector<double>& head : per_head)
      for (double v : head) {
        const float read = a.values[at++];
        if (std::isinf(v)) {
          EXPECT_EQ(read, static_cast<float>(v)) << name;
        } else {
          EXPECT_EQ(read, static_cast<float>(v)) << name << " entry " << at - 1;  // '<f8' read as float
        }
      }
  };
  expect_stacked("weights", t.weights, L);
  expect_stacked("query_activations", t.queries, t.key_dim);
  expect_stacked("key_activations", t.keys, t.key_dim);
  expect_stacked("value_activations", t.values, t.value_dim);
  expect_stacked("score_map", t.logits, L);
  EXPECT_EQ(find("next_token").shape, (std::vector<std::int64_t>{L, t.output_vocab}));

  // The import's default role for these names: only "weights" is recognised, so a plain
  // `--import sentence.npz` shows the model's own maps; layers sit on the batch axis.
  std::vector<RoleArray> defaults;
  for (const NdArray& a : *archive)
    if (const auto role = infer_role(a.name)) defaults.push_back({*role, a, "sentence.npz"});
  ASSERT_EQ(defaults.size(), 1u);
  const ImportAssembly weights = assemble_import(std::move(defaults), {}, {"sentence.npz"}, "");
  ASSERT_TRUE(weights.ok()) << weights.error().message;
  EXPECT_EQ((*weights)->kind, ImportedAttention::Kind::weights);
  EXPECT_EQ((*weights)->batches, t.layers);
  EXPECT_EQ((*weights)->heads, t.heads);
  EXPECT_EQ((*weights)->length, t.length);

  // Q, K, V by name, as `--import sentence.npz:query_activations=Q,key_activations=K,value_activations=V`.
  std::vector<RoleArray> qkv{{ArrayRole::queries, find("query_activations"), "sentence.npz"},
                             {ArrayRole::keys, find("key_activations"), "sentence.npz"},
                             {ArrayRole::values, find("value_activations"), "sentence.npz"}};
  const ImportAssembly activations = assemble_import(std::move(qkv), sentence.labels, {"sentence.npz"}, "");
  ASSERT_TRUE(activations.ok()) << activations.error().message;
  EXPECT_EQ((*activations)->kind, ImportedAttention::Kind::queries_keys);
  EXPECT_EQ((*activations)->key_dim, t.key_dim);
  EXPECT_EQ((*activations)->value_dim, t.value_dim);
  EXPECT_EQ((*activations)->tokens, sentence.labels);

  // The masked scores (−inf above the diagonal) are valid imported scores.
  std::vector<RoleArray> scores{{ArrayRole::scores, find("score_map"), "sentence.npz"}};
  EXPECT_TRUE(assemble_import(std::move(scores), {}, {"sentence.npz"}, "").ok());
}

// ─── Imported data as an .npz (what a hosted class sends its students) ───────────────────

// The data read back from imported_npz, every array's role from its name, as --import FILE.npz does.
std::shared_ptr<const ImportedAttention> read_back(const ImportedAttention& data) {
  const std::vector<std::uint8_t> bytes = imported_npz(data);
  EXPECT_LE(bytes.size(), imported_npz_size(data)) << "the size told beforehand is a bound";
  EXPECT_GE(bytes.size() + 4096, imported_npz_size(data)) << "and a close one";
  const ArchiveParse archive = parse_npz(bytes, "class.npz");
  EXPECT_TRUE(archive.ok()) << archive.error().message;
  if (!archive.ok()) return nullptr;
  std::vector<RoleArray> arrays;
  for (const NdArray& a : *archive) {
    const auto role = infer_role(a.name);
    EXPECT_TRUE(role.has_value()) << a.name;
    if (role) arrays.push_back({*role, a, "class.npz"});
  }
  const ImportAssembly back = assemble_import(std::move(arrays), data.tokens, {"class.npz"}, "");
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back.ok() ? *back : nullptr;
}

// Bit for bit: -0, denormals, the largest floats and -inf compare as bits, not values.
void expect_same_bits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i])) << what << " entry " << i;
}

TEST(ImportedNpz, QueriesKeysAndValuesReadBackBitForBit) {
  std::vector<float> awkward = {-0.0f,
                                std::numeric_limits<float>::denorm_min(),
                                std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(),
                                1e-38f,
                                0.1f,
                                -3.5f};
  const auto values = [&](std::size_t n, float offset) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = awkward[i % awkward.size()] + (i % awkward.size() > 4 ? offset * i : 0.0f);
    return v;
  };
  constexpr int B = 2, H = 3, L = 5, d = 4, dv = 6;
  const ImportAssembly data =
      assemble_import({{ArrayRole::queries, {"q", {B, H, L, d}, values(B * H * L * d, 0.25f), "<f4", {}}, "q.npy"},
                       {ArrayRole::keys, {"k", {B, H, L, d}, values(B * H * L * d, -0.5f), "<f4", {}}, "k.npy"},
                       {ArrayRole::values, {"v", {B, H, L, dv}, values(B * H * L * dv, 2.0f), "<f4", {}}, "v.npy"}},
                      {"the", "cat", "sat", "注意", "."}, {"q.npy", "k.npy", "v.npy"}, "tokens.txt");
  ASSERT_TRUE(data.ok()) << data.error().message;
  const auto back = read_back(**data);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->kind, ImportedAttention::Kind::queries_keys);
  EXPECT_EQ(std::tie(back->batches, back->heads, back->length, back->key_dim, back->value_dim),
            std::tie((*data)->batches, (*data)->heads, (*data)->length, (*data)->key_dim, (*data)->value_dim));
  expect_same_bits(back->queries, (*data)->queries, "Q");
  expect_same_bits(back->keys, (*data)->keys, "K");
  expect_same_bits(back->values, (*data)->values, "V");
  EXPECT_EQ(back->tokens, (*data)->tokens);
}

TEST(ImportedNpz, WeightsAndMaskedScoresReadBackAsTheSameMatrix) {
  constexpr int H = 2, L = 4;
  // Weights with zeros (ln 0 = -inf) and rows that do not sum to 1; scores masked above the diagonal.
  std::vector<float> weights(H * L * L), scores(H * L * L);
  for (int i = 0; i < H * L * L; ++i) {
    const int row = (i / L) % L, column = i % L;
    weights[i] = column > row ? 0.0f : 0.1f + 0.37f * static_cast<float>(i % 7);
    scores[i] = column > row ? -std::numeric_limits<float>::infinity() : 1e30f * static_cast<float>((i % 3) - 1);
  }
  for (const auto& [role, matrix] : {std::pair{ArrayRole::weights, weights}, std::pair{ArrayRole::scores, scores}}) {
    const ImportAssembly data =
        assemble_import({{role, {"m", {H, L, L}, matrix, "<f4", {}}, "m.npy"}}, {}, {"m.npy"}, "");
    ASSERT_TRUE(data.ok()) << data.error().message;
    const auto back = read_back(**data);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(back->kind, ImportedAttention::Kind::scores);
    EXPECT_EQ(std::tie(back->batches, back->heads, back->length),
              std::tie((*data)->batches, (*data)->heads, (*data)->length));
    expect_same_bits(back->matrix, (*data)->matrix, role == ArrayRole::weights ? "ln(weights)" : "scores");
  }
}

// ─── The corpus ──────────────────────────────────────────────────────────────────────────

TEST(TrainCorpus, BuildsAVocabularyOfCodePointsAndEncodesText) {
  std::vector<std::string> texts(60, "注意力 attention, 注意!");
  texts.push_back("rare ¿");  // every code point but ¿ occurs at least twice
  const auto corpus = build_corpus(texts, 2).value();
  EXPECT_EQ(corpus->symbols.front(), U'\uFFFD');
  EXPECT_TRUE(std::is_sorted(corpus->symbols.begin() + 1, corpus->symbols.end()));
  const std::vector<int> encoded = corpus->encode("注意¿\xff");
  ASSERT_EQ(encoded.size(), 4u);
  EXPECT_EQ(corpus->label(encoded[0]), "注");
  EXPECT_EQ(corpus->label(encoded[1]), "意");
  EXPECT_EQ(encoded[2], 0);  // seen once: below min_count
  EXPECT_EQ(encoded[3], 0);  // not UTF-8
  EXPECT_EQ(corpus->label(corpus->encode(" ")[0]), "␣");
  EXPECT_EQ(corpus->unknown_count, 1u);
  EXPECT_EQ(corpus->held_out_from, static_cast<int>(corpus->tokens.size() - corpus->tokens.size() / 10));
}

TEST(TrainCorpus, RefusesTextThatIsNotUtf8AndCorporaOutOfRange) {
  std::vector<std::string> texts(100, "plain text here.");
  texts[3] = "bad \xC3\x28 byte";
  const auto bad = build_corpus(texts, 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("text 3 is not UTF-8 at byte 4"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(build_corpus(std::vector<std::string>{"short"}, 1).ok());
  EXPECT_FALSE(build_corpus(std::vector<std::string>(100, "plain text here."), 0).ok());
}

TEST(TrainCorpus, TheLessonCorpusHasBothLanguages) {
  const std::vector<std::string> texts = train_test::lesson_texts(SMLAB_SOURCE_DIR "/assets/lessons");
  ASSERT_FALSE(texts.empty());
  const auto corpus = build_corpus(texts, lesson_corpus_min_count).value();
  const auto has = [&](char32_t c) {
    return std::binary_search(corpus->symbols.begin() + 1, corpus->symbols.end(), c);
  };
  EXPECT_TRUE(has(U'e') && has(U'的') && has(U'，')) << corpus->vocab_size() << " symbols";
  // A language model of the lessons runs on it.
  EXPECT_TRUE(train::Run::create(default_settings(Task::language), corpus).ok());
}

}  // namespace
}  // namespace smlab::train
