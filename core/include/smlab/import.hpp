// Reading attention data a person brings: NumPy .npy/.npz arrays, CSV matrices and token lists,
// parsed from bytes the caller hands over (the core does no file I/O), then assembled into Q/K(/V),
// raw scores or attention weights. Every rejection is one line naming the file, the array and
// what is allowed; every allocation the input's size drives is bounded (ImportLimits) and checked
// before it is made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/progress.hpp"

namespace smlab {

// What an array is for.
enum class ArrayRole { queries, keys, values, scores, weights };
std::string_view role_name(ArrayRole role);                 // "Q", "K", "V", "scores", "weights"
std::optional<ArrayRole> role_from_name(std::string_view);  // Q/q/query, K/key, V/value, scores/logits, weights/attn
// The role an array's name suggests: q, k, v, scores, attn, weights (and e.g. "query", "layer0_q").
std::optional<ArrayRole> infer_role(std::string_view array_name);

// Bounds that a file cannot talk the parser past, each checked before the allocation it bounds:
// from a header, a declared shape, the role an array plays and the zip directory.
struct ImportLimits {
  static constexpr std::size_t npy_header_max = 65536;                // bytes of the header dict
  static constexpr std::size_t npy_prefix_max = 12 + npy_header_max;  // magic, version, length, dict
  static constexpr std::uint64_t array_elements_max = 1ull << 28;     // 268 M values (1 GiB as float)
  static constexpr std::size_t npz_entries_max = 256;
  // Bytes inflated from one archive, all entries read together: Q, K and V at their largest as
  // float64 (every other combination is smaller), so a directory of overlapping or repeated
  // entries cannot make the reader inflate without end.
  static constexpr std::uint64_t npz_inflated_max = 3 * (array_elements_max * 8 + npy_prefix_max);
  static constexpr int length_max = 32768;        // L of imported Q and K
  static constexpr int scores_length_max = 4096;  // L of imported L×L scores or weights (the file is L²)
  static constexpr int key_dim_max = 4096;
  static constexpr std::int64_t leading_axis_max = 65536;  // B and H
  static constexpr std::size_t tokens_max = 32768;
  static constexpr std::size_t token_bytes_max = 1024;
  static constexpr std::size_t csv_cells_max = 4096u * 4096u;
  static constexpr std::size_t csv_columns_max = 32768;
  static constexpr std::size_t csv_bytes_max = 512u << 20;    // a full 4096×4096 CSV at 32 bytes a cell
  static constexpr std::size_t tokens_bytes_max = 64u << 20;  // 32768 tokens of up to 1 KiB, and some
};

// An array as read: C order (row-major, last axis fastest), values converted to float.
struct NdArray {
  std::string name;                 // "q" for q.npy inside an .npz, the file stem for a lone .npy
  std::vector<std::int64_t> shape;  // 1 to 4 axes, each ≥ 1
  std::vector<float> values;        // product(shape) values
  std::string dtype;                // as declared, e.g. "<f4", ">f2"; "csv" for CSV text
  // One line each, for a file that was read but may not mean what it seems (a CSV that looks
  // like it uses decimal commas). Shown as warnings (stderr, the status line); the import goes on.
  std::vector<std::string> warnings;
};

// Every parse below gives its value or an Error::usage (bad content: exit 2) whose message is one
// line naming the file, the array and what is allowed. The core reads no files, so a file that
// cannot be read is the caller's Error::file. `progress` (progress.hpp) is checked and reported
// through every long loop; a cancelled parse returns cancelled_error("import").
using ArrayParse = Result<NdArray>;
using ArchiveParse = Result<std::vector<NdArray>>;  // the arrays, in the archive's order

// What a .npy header declares, read from the file's first bytes (format 1.0, 2.0 or 3.0; dtype
// <f2 <f4 <f8 >f2 >f4 >f8; 1 to 4 axes of at most array_elements_max values in all).
struct NpyHeader {
  std::string dtype;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  int item_bytes = 4;
  bool big_endian = false;
  std::uint64_t count = 0;      // product(shape)
  std::size_t data_offset = 0;  // the data's first byte, after the header
  [[nodiscard]] std::uint64_t data_bytes() const { return count * static_cast<std::uint64_t>(item_bytes); }
};
// `first_bytes`: the file's first min(size, npy_prefix_max) bytes (more is fine). `file` and `array`
// only name things in messages.
Result<NpyHeader> parse_npy_header(std::span<const std::uint8_t> first_bytes, std::string_view file,
                                   std::string_view array);
// Whether a file (or zip entry) of `total_bytes` holds exactly the header and the data it declares.
Result<void> check_npy_size(const NpyHeader& header, std::uint64_t total_bytes, std::string_view file,
                            std::string_view array);
// Whether an array of this shape may play `role`: the shape rules of assemble_import, checked on a
// declared shape before its values are allocated. One line naming the file, the array, its shape
// and what is allowed.
Result<void> check_role_shape(ArrayRole role, std::span<const std::int64_t> shape, std::string_view file,
                              std::string_view array);

// The values of a .npy array decoded as its data bytes arrive, in pieces split anywhere (a file
// read in chunks, an entry as it inflates). Memory: the header's count of floats at most. With
// `data_present` (the caller has checked that the bytes are there: a file of the right size, a
// stored zip entry) they are reserved at once; else (a deflated entry, which may end long before
// its claim) the buffer grows as values arrive, so a claim costs nothing until it is kept.
class NpyDecoder {
 public:
  explicit NpyDecoder(const NpyHeader& header, bool data_present = true);
  void feed(std::span<const std::uint8_t> bytes);
  [[nodiscard]] std::uint64_t bytes_fed() const { return fed_; }
  // All data bytes fed: the array in C order (a Fortran-order file is transposed here).
  NdArray finish(std::string name) &&;

 private:
  NpyHeader header_;
  std::vector<float> values_;  // in file order
  std::uint8_t partial_[8] = {};
  int partial_size_ = 0;
  std::uint64_t fed_ = 0;
};

// A .npy file held in memory. `role`, when given, is checked against the declared shape first.
ArrayParse parse_npy(std::span<const std::uint8_t> bytes, std::string_view file, std::string_view array,
                     std::optional<ArrayRole> role = std::nullopt, const Progress& progress = {});

// A .npz (zip of .npy, stored or deflated). `wanted`: array names to decode (empty: all); the
// others are listed but not inflated. `roles`, when not empty, gives wanted[i] its role, checked
// against the declared shape before that array's values are allocated. Before anything is
// inflated: the directory's entries may not overlap one another or the directory, and the wanted
// entries' declared sizes may not add up to more than npz_inflated_max.
ArchiveParse parse_npz(std::span<const std::uint8_t> bytes, std::string_view file,
                       std::span<const std::string> wanted = {}, std::span<const ArrayRole> roles = {},
                       const Progress& progress = {});
// The array names of an .npz without decoding any ("q", "k", ...), or an error line.
ArchiveParse list_npz(std::span<const std::uint8_t> bytes, std::string_view file);

// A CSV matrix: one row per line, numbers separated by commas (finite, or -inf for a masked
// score; a number too small for a float reads as 0, one too large is refused). A UTF-8 byte-order
// mark is skipped. The first line is a header, and skipped, only when none of its cells is a
// number; any other cell that is not a number is an error naming its row (the file's line) and
// column. A file whose rows look like decimal commas ("0,125,1,250" for 0.125 and 1.25) is read
// as written, with a warning and a hint in NdArray::warnings. Shape [rows, cols].
ArrayParse parse_csv_matrix(std::string_view text, std::string_view file, const Progress& progress = {});

// Token labels: a JSON list of strings (["The", "cat"]) or plain text, one token per line. The
// text is read as JSON when `file` ends in .json, or when the whole text parses as a JSON list of
// strings; else as lines, so a first line "[CLS]" is a token. A UTF-8 byte-order mark is skipped;
// no tokens at all (an empty file, [], a byte-order mark alone) is an error, as is a JSON value
// that is not a list of strings.
using TokenParse = Result<std::vector<std::string>>;
TokenParse parse_tokens(std::string_view text, std::string_view file);

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
  std::string summary;                // one line, e.g. "Q, K, V [1, 4, 12, 16] from qkv.npz"
  std::vector<std::string> warnings;  // the arrays' NdArray::warnings, in order: shown, not fatal

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

// An array to write into an .npz: its name there (without ".npy"), its shape (C order) and its
// values, written as little-endian float32 ('<f4') or float64 ('<f8'). The values are not copied:
// they must outlive the call.
struct NpzArray {
  std::string name;
  std::vector<std::size_t> shape;
  std::variant<std::span<const float>, std::span<const double>> values;
};
// The .npz bytes: format-1.0 .npy files in a zip of stored entries (no zip64: each entry and the
// whole below 4 GiB), which parse_npz reads back.
std::vector<std::uint8_t> npz_bytes(const std::vector<NpzArray>& arrays);

// The data as an .npz that an import of it (the arrays' roles from their names) reads back to the
// same numbers: Q, K and V as "q", "k", "v" [B, H, L, d] float32, or the matrix as "scores"
// [B, H, L, L] (weights as ln(weights), which read back bit for bit as scores and give the same
// weights at T = 1). Its size in bytes is known before it is made (imported_npz_size).
std::vector<std::uint8_t> imported_npz(const ImportedAttention& data);
std::uint64_t imported_npz_size(const ImportedAttention& data);

// A label shortened to at most max_chars code points (an ellipsis … replaces the cut), cutting
// only between UTF-8 code points.
std::string shorten_label(std::string_view label, std::size_t max_chars);

}  // namespace smlab
