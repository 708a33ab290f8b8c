// The rest of importing: CSV matrices, token lists, --import specs, role names, and the checks
// that turn picked arrays into one ImportedAttention.
//
// [SECTION] Index
//   [SECTION] Text: trimming, numbers, UTF-8, JSON strings
//   [SECTION] CSV matrices and token lists
//   [SECTION] Roles and --import specs
//   [SECTION] Assembling one ImportedAttention
//   [SECTION] Labels
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "smlab/import.hpp"
#include "quoted.hpp"
#include "smlab/params.hpp"
#include "smlab/utf8.hpp"

namespace smlab {
namespace {

using import_detail::shown;

// [SECTION] Text: trimming, numbers, UTF-8, JSON strings

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// One CSV cell: a number (finite, or -inf; one too small for a double reads as ±0, as --set
// scores reads it), a number too large for a double, or not a number at all.
struct Cell {
  enum class Kind { number, too_large, not_number };
  Kind kind = Kind::not_number;
  double value = 0.0;
};

Cell read_cell(std::string_view token) {
  token = trim(token);
  const std::string low = lower(token);
  if (low == "-inf" || low == "-infinity") return {Cell::Kind::number, -std::numeric_limits<double>::infinity()};
  std::string_view body = token;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (body.empty() || end != body.data() + body.size()) return {};
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports overflow and underflow alike; parse_scores (params.hpp) tells them apart
    // the one way every entry point does: underflow is ±0, overflow is refused.
    const Result<std::vector<double>> exact = parse_scores(token);
    if (exact && exact->size() == 1) return {Cell::Kind::number, exact->front()};
    return {Cell::Kind::too_large, 0.0};
  }
  if (ec != std::errc{}) return {};
  return {Cell::Kind::number, value};
}

// A UTF-8 byte-order mark at the start, which some editors (and Excel's "CSV UTF-8") write.
std::string_view without_bom(std::string_view text) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xef && static_cast<unsigned char>(text[1]) == 0xbb &&
      static_cast<unsigned char>(text[2]) == 0xbf)
    text.remove_prefix(3);
  return text;
}

// Valid UTF-8 (no overlongs, no surrogates: smlab/utf8.hpp), so labels never break the font renderer.
bool valid_utf8(std::string_view text) { return first_invalid_utf8(text) == std::string_view::npos; }

// A JSON list of strings, the whole text: ["a", "b\u00e9", ...], or an Error::usage saying what is
// wrong (the caller names the file).
Result<void> json_string_list(std::string_view text, std::vector<std::string>& out) {
  std::size_t pos = 0;
  auto space = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t'))
      ++pos;
  };
  auto hex4 = [&](std::uint32_t& code) {
    if (text.size() - pos < 4) return false;
    code = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = text[pos++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f')
        code |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        code |= static_cast<std::uint32_t>(h - 'A' + 10);
      else
        return false;
    }
    return true;
  };
  space();
  if (pos >= text.size() || text[pos] != '[') return Error::usage("expected a JSON list of strings");
  ++pos;
  space();
  if (pos < text.size() && text[pos] == ']') {
    ++pos;
    space();
    if (pos == text.size()) return {};
    return Error::usage("text after the list");
  }
  for (;;) {
    space();
    if (pos >= text.size() || text[pos] != '"')
      return Error::usage("entry " + std::to_string(out.size() + 1) + " is not a string");
    ++pos;
    std::string token;
    for (;;) {
      if (pos >= text.size()) return Error::usage("unterminated string in entry " + std::to_string(out.size() + 1));
      const char c = text[pos++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20)
        return Error::usage("control character in entry " + std::to_string(out.size() + 1));
      if (c != '\\') {
        token += c;
        continue;
      }
      if (pos >= text.size()) return Error::usage("unterminated escape");
      const char e = text[pos++];
      switch (e) {
        case '"': token += '"'; break;
        case '\\': token += '\\'; break;
        case '/': token += '/'; break;
        case 'b': token += '\b'; break;
        case 'f': token += '\f'; break;
        case 'n': token += '\n'; break;
        case 'r': token += '\r'; break;
        case 't': token += '\t'; break;
        case 'u': {
          std::uint32_t code = 0;
          if (!hex4(code)) return Error::usage("bad \\u escape");
          if (code >= 0xd800 && code <= 0xdbff) {  // a surrogate pair
            std::uint32_t low = 0;
            if (text.substr(pos, 2) != "\\u") return Error::usage("lone surrogate");
            pos += 2;
            if (!hex4(low) || low < 0xdc00 || low > 0xdfff) return Error::usage("bad surrogate pair");
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          } else if (code >= 0xdc00 && code <= 0xdfff) {
            return Error::usage("lone surrogate");
          }
          append_utf8(token, code);
          break;
        }
        default: return Error::usage("bad escape in entry " + std::to_string(out.size() + 1));
      }
      if (token.size() > ImportLimits::token_bytes_max) break;
    }
    if (token.size() > ImportLimits::token_bytes_max)
      return Error::usage("entry " + std::to_string(out.size() + 1) + " is longer than 1024 bytes");
    if (out.size() >= ImportLimits::tokens_max) return Error::usage("more than 32768 tokens");
    out.push_back(std::move(token));
    space();
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      space();
      if (pos == text.size()) return {};
      return Error::usage("text after the list");
    }
    return Error::usage("expected ',' or ']' after entry " + std::to_string(out.size()));
  }
}

}  // namespace

// [SECTION] CSV matrices and token lists

ArrayParse parse_csv_matrix(std::string_view text, std::string_view file, const Progress& progress) {
  auto fail = [&](const std::string& why) { return Error::usage(std::string(file) + ": " + why); };
  text = without_bom(text);
  NdArray out;
  out.name = "csv";
  out.dtype = "csv";
  std::size_t cols = 0, rows = 0, line_number = 0, pos = 0;
  bool first_line = true;
  // Decimal commas ("0,125,1,250" for 0.125, 1.25): every row an even number of whole numbers,
  // every second one unsigned digits, and one of those longer than one digit.
  bool commas_plausible = true, commas_seen = false;
  std::vector<float> row;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_number;
    if (line.empty()) continue;
    if ((line_number & 0xfff) == 0) {
      if (progress.cancelled()) return cancelled_error("import");
      progress.report(static_cast<double>(pos) / static_cast<double>(text.size()));
    }
    row.clear();
    bool any_number = false;  // a cell that reads as a number, allowed or not
    std::optional<std::pair<std::size_t, Cell>> first_bad;
    std::string_view first_bad_text;
    std::size_t cell_start = 0;
    for (std::size_t column = 1;; ++column) {
      const std::size_t comma = line.find(',', cell_start);
      const std::string_view cell =
          trim(line.substr(cell_start, comma == std::string_view::npos ? std::string_view::npos : comma - cell_start));
      const Cell read = read_cell(cell);
      const bool usable = read.kind == Cell::Kind::number && !std::isnan(read.value) &&
                          read.value != std::numeric_limits<double>::infinity() &&
                          !(std::isfinite(read.value) && std::fabs(read.value) > std::numeric_limits<float>::max());
      any_number = any_number || read.kind != Cell::Kind::not_number;
      if (usable) {
        row.push_back(static_cast<float>(read.value));
        const bool digits = !cell.empty() && cell.find_first_not_of("0123456789") == std::string_view::npos;
        const bool whole = digits || (cell.size() > 1 && cell[0] == '-' &&
                                      cell.find_first_not_of("0123456789", 1) == std::string_view::npos);
        if (!whole || (column % 2 == 0 && !digits)) commas_plausible = false;
        if (column % 2 == 0 && cell.size() > 1) commas_seen = true;
      } else if (!first_bad) {
        first_bad.emplace(column, read);
        first_bad_text = cell;
      }
      if (column > ImportLimits::csv_columns_max)
        return fail("row " + std::to_string(line_number) + " has more than 32768 columns");
      if (comma == std::string_view::npos) break;
      cell_start = comma + 1;
    }
    // Only a first line with no number in it is a header ("q0,q1,q2"); any other cell that is not
    // a number is named, so "1,2,x" or "0x10,1" is never dropped as if it were one.
    const bool header = first_line && !any_number;
    first_line = false;
    if (header) continue;
    if (first_bad) {
      const std::string at = "row " + std::to_string(line_number) + ", column " + std::to_string(first_bad->first) +
                             ": '" + shown(first_bad_text) + "'";
      if (first_bad->second.kind == Cell::Kind::not_number)
        return fail(at + " is not a number: allowed finite numbers or -inf, separated by commas");
      return fail(at + " is not allowed: finite numbers within float range (about 3.4e38), or -inf");
    }
    if (row.size() % 2 != 0) commas_plausible = false;
    if (rows == 0)
      cols = row.size();
    else if (row.size() != cols)
      return fail("row " + std::to_string(line_number) + " has " + std::to_string(row.size()) +
                  " numbers, the first row of data has " + std::to_string(cols) + ": allowed a rectangular matrix");
    ++rows;
    if (rows * cols > ImportLimits::csv_cells_max) return fail("more than 4096x4096 numbers: allowed at most 16777216");
    out.values.insert(out.values.end(), row.begin(), row.end());
  }
  if (rows == 0) return fail("no numbers: expected rows of comma-separated numbers");
  out.shape = {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
  if (commas_plausible && commas_seen)
    out.warnings.push_back(std::string(file) + ": read as " + std::to_string(rows) + " x " + std::to_string(cols) +
                           " whole numbers, but its rows look like decimal commas ('0,125' for 0.125): if so, "
                           "write decimals with '.' (0.125,1.25)");
  return out;
}

TokenParse parse_tokens(std::string_view text, std::string_view file) {
  auto fail = [&](const std::string& why) { return Error::usage(std::string(file) + ": " + why); };
  const std::string allowed =
      "allowed UTF-8 text, one token per line, or a JSON list of strings, e.g. [\"The\", \"cat\"]";
  std::vector<std::string> tokens;
  text = without_bom(text);
  if (!valid_utf8(text)) return fail("not valid UTF-8: " + allowed);
  if (trim(text).empty()) return fail("no tokens (the file is empty): " + allowed);
  // JSON when the file says so (.json) or when the whole text is a JSON list of strings; else one
  // token per line, so a vocabulary whose first line is "[CLS]" is a token list, not bad JSON.
  const bool json_file = lower(file).ends_with(".json");
  // A token is a label to show: a NUL or another control character in one (a raw byte on a line,
  // or a JSON escape such as \u0000) was dropped where it is drawn ("a\0b" showed as "ab"), so it is
  // refused, as the CSV and session readers refuse a NUL. Tabs are text.
  const auto control_free = [&](const std::vector<std::string>& read) -> Result<void> {
    for (std::size_t n = 0; n < read.size(); ++n)
      for (const char c : read[n]) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte >= 0x20 && byte != 0x7f) || byte == '\t') continue;
        constexpr char digits[] = "0123456789ABCDEF";
        const std::string code = std::string("U+00") + digits[byte >> 4] + digits[byte & 0xF];
        return fail("token " + std::to_string(n + 1) + " holds " +
                    (byte == 0 ? "a NUL byte (" + code + ")" : "the control character " + code) +
                    ": a token is a label of printable text");
      }
    return {};
  };
  const Result<void> json_list = json_string_list(text, tokens);
  if (json_list) {
    if (tokens.empty()) return fail("an empty list: no tokens: " + allowed);
    if (Result<void> clean = control_free(tokens); !clean) return clean.error();
    return tokens;
  }
  if (json_file) return fail(json_list.error().message + ": allowed a JSON list of strings, e.g. [\"The\", \"cat\"]");
  const std::string_view body = trim(text);
  if (body.size() >= 2 && body.front() == '{' && body.back() == '}')
    return fail("a JSON object, not a list: " + allowed);
  tokens.clear();
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    if (line.size() > ImportLimits::token_bytes_max)
      return fail("line " + std::to_string(tokens.size() + 1) + " is longer than 1024 bytes");
    if (tokens.size() >= ImportLimits::tokens_max) return fail("more than 32768 tokens");
    tokens.emplace_back(line);
  }
  if (tokens.empty()) return fail("no tokens (the file is empty): " + allowed);
  if (Result<void> clean = control_free(tokens); !clean) return clean.error();
  return tokens;
}

// [SECTION] Roles and --import specs

std::string_view role_name(ArrayRole role) {
  switch (role) {
    case ArrayRole::queries: return "Q";
    case ArrayRole::keys: return "K";
    case ArrayRole::values: return "V";
    case ArrayRole::scores: return "scores";
    case ArrayRole::weights: return "weights";
  }
  return "?";
}

std::optional<ArrayRole> role_from_name(std::string_view name) {
  const std::string n = lower(name);
  if (n == "q" || n == "query" || n == "queries") return ArrayRole::queries;
  if (n == "k" || n == "key" || n == "keys") return ArrayRole::keys;
  if (n == "v" || n == "value" || n == "values") return ArrayRole::values;
  if (n == "scores" || n == "score" || n == "logits" || n == "qk") return ArrayRole::scores;
  if (n == "weights" || n == "attn" || n == "attention" || n == "probs" || n == "attn_weights")
    return ArrayRole::weights;
  return std::nullopt;
}

std::optional<ArrayRole> infer_role(std::string_view array_name) {
  if (auto role = role_from_name(array_name)) return role;
  // "layer0_q", "block3.attn": the last part after '_' or '.'.
  const auto cut = array_name.find_last_of("_./");
  if (cut != std::string_view::npos) return role_from_name(array_name.substr(cut + 1));
  return std::nullopt;
}

SpecParse parse_import_spec(std::string_view text, bool (*exists)(const std::string& path)) {
  if (text.empty() || text.size() > 4096)
    return Error::usage("--import '" + shown(text) + "' is not allowed: FILE[:ROLE] or FILE.npz[:ARRAY[=ROLE],...]");
  ImportSpec spec;
  spec.text = std::string(text);
  const std::string whole(text);
  const auto colon = whole.rfind(':');
  if ((exists != nullptr && exists(whole)) || colon == std::string::npos) {
    spec.path = whole;
    return spec;
  }
  spec.path = whole.substr(0, colon);
  const std::string_view selections = std::string_view(whole).substr(colon + 1);
  const bool archive = lower(spec.path).ends_with(".npz");
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = selections.find(',', start);
    const std::string_view item =
        trim(selections.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    ImportSpec::Selection selection;
    const auto equals = item.find('=');
    const std::string_view array = trim(item.substr(0, equals));
    const std::string_view role = equals == std::string_view::npos ? std::string_view{} : trim(item.substr(equals + 1));
    if (!archive) {
      // A lone array: the part after ':' names its role ("q.npy:Q", or "q.npy:=Q").
      const std::string_view role_text = equals == std::string_view::npos ? array : role;
      selection.role = role_from_name(role_text);
      if (!selection.role || (equals != std::string_view::npos && !array.empty()) || comma != std::string_view::npos)
        return Error::usage("--import '" + shown(text) + "': '" + shown(item) +
                            "' is not a role: allowed Q, K, V, scores or weights (FILE:ROLE for .npy and .csv)");
    } else {
      if (array.empty())
        return Error::usage("--import '" + shown(text) +
                            "': an empty array name: allowed FILE.npz:ARRAY or FILE.npz:ARRAY=ROLE");
      selection.array = std::string(array);
      if (equals != std::string_view::npos) {
        selection.role = role_from_name(role);
        if (!selection.role)
          return Error::usage("--import '" + shown(text) + "': role '" + shown(role) +
                              "' is not allowed: Q, K, V, scores or weights");
      }
    }
    spec.selections.push_back(std::move(selection));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
    if (spec.selections.size() >= 16) return Error::usage("--import '" + shown(text) + "' names more than 16 arrays");
  }
  return spec;
}

// [SECTION] Assembling one ImportedAttention

std::span<const float> ImportedAttention::slice(const std::vector<float>& all, int batch, int head, int per_row) const {
  const std::size_t size = static_cast<std::size_t>(length) * static_cast<std::size_t>(per_row);
  const std::size_t index =
      static_cast<std::size_t>(batch) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(head);
  return std::span<const float>(all).subspan(index * size, size);
}

namespace {

// "FILE array 'name' (Q) of shape [a, b]": how every shape message names an array.
std::string described(std::string_view file, std::string_view array, ArrayRole role,
                      std::span<const std::int64_t> shape) {
  std::string text =
      std::string(file) + " array '" + shown(array) + "' (" + std::string(role_name(role)) + ") of shape [";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

Result<void> check_role_shape(ArrayRole role, std::span<const std::int64_t> shape, std::string_view file,
                              std::string_view array) {
  const bool matrix = role == ArrayRole::scores || role == ArrayRole::weights;
  auto fail = [&](const std::string& why) { return Error::usage(described(file, array, role, shape) + ": " + why); };
  const std::size_t n = shape.size();
  const bool leading_fit = n >= 2 && n <= 4 && shape[0] <= ImportLimits::leading_axis_max &&
                           (n < 3 || shape[n - 3] <= ImportLimits::leading_axis_max);
  if (!leading_fit)
    return fail(matrix ? "allowed [L, L], [H, L, L] or [B, H, L, L]" : "allowed [L, d], [H, L, d] or [B, H, L, d]");
  const std::int64_t length = shape[n - 2], last = shape[n - 1];
  if (matrix) {
    if (last != length) return fail("the last two axes must be equal (L x L)");
    if (length < 2 || length > ImportLimits::scores_length_max)
      return fail("L = " + std::to_string(length) + " is not allowed: 2 to 4096 for an L x L matrix");
    return {};
  }
  if (length < 2 || length > ImportLimits::length_max)
    return fail("L = " + std::to_string(length) + " is not allowed: 2 to 32768");
  if (last > ImportLimits::key_dim_max)
    return fail(std::string(role == ArrayRole::values ? "d_v" : "d") + " = " + std::to_string(last) +
                " is not allowed: 1 to 4096");
  return {};
}

ImportAssembly assemble_import(std::vector<RoleArray> arrays, std::vector<std::string> tokens,
                               std::vector<std::string> sources, std::string tokens_file) {
  auto fail = [](const std::string& why) { return Error::usage(why); };
  RoleArray* by_role[5] = {};
  for (RoleArray& item : arrays) {
    RoleArray*& slot = by_role[static_cast<int>(item.role)];
    if (slot != nullptr)
      return fail(item.file + " array '" + shown(item.array.name) + "': a second " + std::string(role_name(item.role)) +
                  " (the first is " + slot->file + " array '" + shown(slot->array.name) + "'): allowed one of each");
    slot = &item;
  }
  RoleArray* q = by_role[0];
  RoleArray* k = by_role[1];
  RoleArray* v = by_role[2];
  RoleArray* s = by_role[3];
  RoleArray* w = by_role[4];
  const int kinds = (q || k ? 1 : 0) + (s ? 1 : 0) + (w ? 1 : 0);
  if (kinds == 0)
    return fail(
        "nothing to show: import Q and K (and optionally V), or scores, or weights (arrays named q, k, v, "
        "scores or attn are recognised; else name the role, e.g. --import data.npz:x=Q)");
  if (kinds > 1) return fail("import one of: Q and K, scores, or weights (not several at once)");
  auto data = std::make_shared<ImportedAttention>();
  auto describe = [](const RoleArray& a) { return described(a.file, a.array.name, a.role, a.array.shape); };
  // Leading axes [B, H] of a shape with `inner` trailing axes; false if it has too many.
  auto leading = [&](const NdArray& a, int& batches, int& heads) {
    const std::size_t n = a.shape.size();
    if (n < 2 || n > 4) return false;
    batches = n == 4 ? static_cast<int>(a.shape[0]) : 1;
    heads = n >= 3 ? static_cast<int>(a.shape[n - 3]) : 1;
    return a.shape[0] <= 65536 && (n < 3 || a.shape[n - 3] <= 65536);
  };
  std::string summary;
  if (q || k) {
    if (!q || !k) return fail("Q and K go together: " + std::string(q ? "no K" : "no Q") + " was imported");
    if (q->array.shape != k->array.shape)
      return fail(describe(*k) + " does not match " + describe(*q) +
                  ": allowed the same shape [L, d], [H, L, d] or [B, H, L, d]");
    if (!leading(q->array, data->batches, data->heads))
      return fail(describe(*q) + ": allowed [L, d], [H, L, d] or [B, H, L, d]");
    const std::size_t n = q->array.shape.size();
    const std::int64_t length = q->array.shape[n - 2], dim = q->array.shape[n - 1];
    if (length < 2 || length > ImportLimits::length_max)
      return fail(describe(*q) + ": L = " + std::to_string(length) + " is not allowed: 2 to 32768");
    if (dim > ImportLimits::key_dim_max)
      return fail(describe(*q) + ": d = " + std::to_string(dim) + " is not allowed: 1 to 4096");
    data->length = static_cast<int>(length);
    data->key_dim = static_cast<int>(dim);
    if (v) {
      const auto& vs = v->array.shape;
      if (vs.size() != n || !std::equal(vs.begin(), vs.end() - 1, q->array.shape.begin()) ||
          vs.back() > ImportLimits::key_dim_max)
        return fail(describe(*v) + " does not match " + describe(*q) +
                    ": allowed the same leading axes, any d_v up to 4096");
      data->value_dim = static_cast<int>(vs.back());
    }
    for (RoleArray* a : {q, k, v}) {
      if (a == nullptr) continue;
      for (std::size_t i = 0; i < a->array.values.size(); ++i)
        if (!std::isfinite(a->array.values[i]))
          return fail(describe(*a) + ": value " + std::to_string(i) + " is not finite: allowed finite numbers");
    }
    data->kind = ImportedAttention::Kind::queries_keys;
    data->queries = std::move(q->array.values);
    data->keys = std::move(k->array.values);
    if (v) data->values = std::move(v->array.values);
    summary = v ? "Q, K, V" : "Q, K";
    summary += " [" + std::to_string(data->batches) + ", " + std::to_string(data->heads) + ", " +
               std::to_string(data->length) + ", " + std::to_string(data->key_dim) + "]";
  } else {
    RoleArray& m = s ? *s : *w;
    if (v) return fail(describe(*v) + ": V goes with Q and K, not with " + std::string(role_name(m.role)));
    if (!leading(m.array, data->batches, data->heads))
      return fail(describe(m) + ": allowed [L, L], [H, L, L] or [B, H, L, L]");
    const std::size_t n = m.array.shape.size();
    const std::int64_t length = m.array.shape[n - 2];
    if (m.array.shape[n - 1] != length) return fail(describe(m) + ": the last two axes must be equal (L x L)");
    if (length < 2 || length > ImportLimits::scores_length_max)
      return fail(describe(m) + ": L = " + std::to_string(length) + " is not allowed: 2 to 4096 for an L x L matrix");
    data->length = static_cast<int>(length);
    const std::size_t row_len = static_cast<std::size_t>(length);
    std::vector<float>& values = m.array.values;
    for (std::size_t r = 0; r * row_len < values.size(); ++r) {
      bool usable = false;
      for (std::size_t j = 0; j < row_len; ++j) {
        float& x = values[r * row_len + j];
        const std::string at = " at row " + std::to_string(r % row_len) + ", column " + std::to_string(j);
        if (s) {
          if (std::isnan(x) || x == std::numeric_limits<float>::infinity())
            return fail(describe(m) + ": a score is NaN or +inf" + at + ": allowed finite numbers or -inf (masked)");
          usable = usable || std::isfinite(x);
        } else {
          if (!std::isfinite(x) || x < 0.0f)
            return fail(describe(m) + ": weight " + std::to_string(x) + at + " is not allowed: finite and >= 0");
          usable = usable || x > 0.0f;
          x = x > 0.0f ? std::log(x) : -std::numeric_limits<float>::infinity();  // softmax(ln w) = w / Σw
        }
      }
      if (!usable)
        return fail(describe(m) + ": row " + std::to_string(r % row_len) +
                    (s ? " has no finite score" : " has no positive weight") + ": every row needs one");
    }
    data->kind = s ? ImportedAttention::Kind::scores : ImportedAttention::Kind::weights;
    data->matrix = std::move(values);
    summary = std::string(s ? "scores" : "weights") + " [" + std::to_string(data->batches) + ", " +
              std::to_string(data->heads) + ", " + std::to_string(length) + ", " + std::to_string(length) + "]";
  }
  if (!tokens.empty() && tokens.size() != static_cast<std::size_t>(data->length))
    return fail(tokens_file + ": " + std::to_string(tokens.size()) + (tokens.size() == 1 ? " token" : " tokens") +
                " for L = " + std::to_string(data->length) + ": allowed exactly one token per position");
  std::string files;
  for (const std::string& source : sources)  // file names only: the summary is one short line
    files += (files.empty() ? "" : ", ") +
             source.substr(source.find_last_of('/') == std::string::npos ? 0 : source.find_last_of('/') + 1);
  data->summary = summary + " from " + files;
  for (const RoleArray& item : arrays)
    data->warnings.insert(data->warnings.end(), item.array.warnings.begin(), item.array.warnings.end());
  data->tokens = std::move(tokens);
  data->sources = std::move(sources);
  data->tokens_file = std::move(tokens_file);
  return std::shared_ptr<const ImportedAttention>(std::move(data));
}

// [SECTION] Labels

std::string shorten_label(std::string_view label, std::size_t max_chars) {
  std::size_t chars = 0, cut = 0;
  for (std::size_t i = 0; i < label.size(); ++i) {
    if ((static_cast<unsigned char>(label[i]) & 0xc0) == 0x80) continue;  // continuation byte
    if (chars == (max_chars > 0 ? max_chars - 1 : 0)) cut = i;
    ++chars;
  }
  if (chars <= max_chars) return std::string(label);
  return std::string(label.substr(0, cut)) + "\xe2\x80\xa6";  // …
}

}  // namespace smlab
