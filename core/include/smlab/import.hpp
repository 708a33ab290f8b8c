// Reading attention data a person brings: NumPy .npy/.npz arrays, CSV matrices and token lists,
// parsed from bytes the caller hands over (the core does no file I/O), then assembled into Q/K(/V),
// raw scores or attention weights. Every rejection is one line naming the file, the array and
// what is allowed; nothing here allocates more than a bounded size declared by the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"

namespace smlab {

// Bounds that a file cannot talk the parser past (checked before any allocation).
struct ImportLimits {
  static constexpr std::size_t npy_header_max = 65536;             // bytes of the header dict
  static constexpr std::uint64_t array_elements_max = 1ull << 28;  // 268 M values (1 GiB as float)
  static constexpr std::size_t npz_entries_max = 256;
  static constexpr int length_max = 32768;        // L of imported Q and K
  static constexpr int scores_length_max = 4096;  // L of imported L×L scores or weights (the file is L²)
  static constexpr int key_dim_max = 4096;
  static constexpr std::size_t tokens_max = 32768;
  static constexpr std::size_t token_bytes_max = 1024;
  static constexpr std::size_t csv_cells_max = 4096u * 4096u;
};

// An array as read: C order (row-major, last axis fastest), values converted to float.
struct NdArray {
  std::string name;                 // "q" for q.npy inside an .npz, the file stem for a lone .npy
  std::vector<std::int64_t> shape;  // 1 to 4 axes, each ≥ 1
  std::vector<float> values;        // product(shape) values
  std::string dtype;                // as declared, e.g. "<f4", ">f2"; "csv" for CSV text
};

// Every parse below gives its value or an Error::usage (bad content: exit 2) whose message is one
// line naming the file, the array and what is allowed. The core reads no files, so a file that
// cannot be read is the caller's Error::file.
using ArrayParse = Result<NdArray>;
using ArchiveParse = Result<std::vector<NdArray>>;  // the arrays, in the archive's order

// A .npy file (format 1.0, 2.0 or 3.0; dtype <f2 <f4 <f8 >f2 >f4 >f8; C or Fortran order).
// `file` and `array` only name things in messages.
ArrayParse parse_npy(std::span<const std::uint8_t> bytes, std::string_view file, std::string_view array);

// A .npz (zip of .npy, stored or deflated). `wanted`: array names to decode (empty: all); the
// others are listed but not inflated.
ArchiveParse parse_npz(std::span<const std::uint8_t> bytes, std::string_view file,
                       std::span<const std::string> wanted = {});
// The array names of an .npz without decoding any ("q", "k", ...), or an error line.
ArchiveParse list_npz(std::span<const std::uint8_t> bytes, std::string_view file);

// A CSV matrix: one row per line, numbers separated by commas (finite, or -inf for a masked
// score); a first line that is not numbers is a header and skipped. Shape [rows, cols].
ArrayParse parse_csv_matrix(std::string_view text, std::string_view file);

// Token labels: a JSON list of strings (["The", "cat"]) or plain text, one token per line.
using TokenParse = Result<std::vector<std::string>>;
TokenParse parse_tokens(std::string_view text, std::string_view file);

// What an array is for.
enum class ArrayRole { queries, keys, values, scores, weights };
std::string_view role_name(ArrayRole role);                 // "Q", "K", "V", "scores", "weights"
std::optional<ArrayRole> role_from_name(std::string_view);  // Q/q/query, K/key, V/value, scores/logits, weights/attn
// The role an array's name suggests: q, k, v, scores, attn, weights (and e.g. "query", "layer0_q").
std::optional<ArrayRole> infer_role(std::string_view array_name);

// One --import argument: FILE, FILE:ROLE (a lone .npy or .csv), or FILE:SEL[,SEL...] with
// SEL = ARRAY (role from its name) or ARRAY=ROLE (an .npz). `exists` tells whether a path is a
// file, so a path that itself holds ':' still works.
struct ImportSpec {
  std::string text;  // as given
  std::string path;
  struct Selection {
    std::string array;              // "" for a lone .npy/.csv
    std::optional<ArrayRole> role;  // nullopt: infer from the name
  };
  std::vector<Selection> selections;  // empty: every array, roles inferred
};
using SpecParse = Result<ImportSpec>;
SpecParse parse_import_spec(std::string_view text, bool (*exists)(const std::string& path));

// Imported attention: Q and K (and V), or L×L scores, or L×L weights, over B batches and H heads.
struct ImportedAttention {
  enum class Kind { queries_keys, scores, weights };
  Kind kind = Kind::queries_keys;
  int batches = 1, heads = 1, length = 0;
  int key_dim = 0;    // d of Q and K; 0 = not known (scores or weights)
  int value_dim = 0;  // d_v, 0 = no V
  // C order [B, H, L, d] (queries, keys), [B, H, L, d_v] (values), [B, H, L, L] (matrix: scores,
  // or ln(weights) so that softmax of it gives the weights back at T = 1).
  std::vector<float> queries, keys, values, matrix;
  std::vector<std::string> tokens;  // L labels, or empty
  // Where it came from, for sessions and messages: the --import texts and the tokens file.
  std::vector<std::string> sources;
  std::string tokens_file;
  std::string summary;  // one line, e.g. "Q, K, V [1, 4, 12, 16] from qkv.npz"

  // One (batch, head) slice: L×d floats of queries/keys (values: L×d_v), or L×L of matrix.
  std::span<const float> slice(const std::vector<float>& all, int batch, int head, int per_row) const;
};

// An array with the role it plays, as picked from a spec.
struct RoleArray {
  ArrayRole role;
  NdArray array;
  std::string file;  // for messages
};

// Checks shapes and values and builds the data. Allowed: Q and K of one shape [L,d], [H,L,d] or
// [B,H,L,d] (L ≤ 32768, d ≤ 4096) with optional V of the same leading axes; or scores or
// weights [L,L], [H,L,L] or [B,H,L,L] (L ≤ 4096). Q, K, V finite; scores finite or −inf with one
// finite per row; weights ≥ 0 and finite with one positive per row. Tokens, when given, are L.
using ImportAssembly = Result<std::shared_ptr<const ImportedAttention>>;  // never a null pointer
ImportAssembly assemble_import(std::vector<RoleArray> arrays, std::vector<std::string> tokens,
                               std::vector<std::string> sources, std::string tokens_file);

// A label shortened to at most max_chars code points (an ellipsis … replaces the cut), cutting
// only between UTF-8 code points.
std::string shorten_label(std::string_view label, std::size_t max_chars);

}  // namespace smlab
