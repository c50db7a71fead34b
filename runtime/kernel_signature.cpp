// Argument checking mirrors what the compiler knows: shape symbols bind
// from the first tensor that has them, and every later use must agree.
#include "runtime/kernel_signature.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "runtime/output_check.h"
#include "runtime/json.h"

namespace tmc::runtime {
namespace {

constexpr const char* kDtypeNames[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16",
                                       "u32", "u64", "f16", "bf16", "f32", "f64"};

// Recursive descent over formulas: expr := term (('+'|'-') term)*, etc.
class Formula {
 public:
  Formula(const std::string& t, const std::map<std::string, int64_t>& names) : t_(t), names_(names) {}
  std::optional<int64_t> Run(std::string* error) {
    std::optional<int64_t> v = Or();
    Skip();
    if (v && pos_ != t_.size()) err_ = "unexpected '" + t_.substr(pos_, 1) + "'";
    if (!err_.empty()) {
      *error = "in formula '" + t_ + "': " + err_;
      return std::nullopt;
    }
    return v;
  }

 private:
  void Skip() {
    while (pos_ < t_.size() && t_[pos_] == ' ') ++pos_;
  }
  // Launch conditions: comparisons (1 or 0), && and ||, as C orders them.
  bool Next(const char* op) {
    Skip();
    size_t n = std::strlen(op);
    if (t_.compare(pos_, n, op) != 0) return false;
    // '<' is not '<=' (nor '<<'), '>' not '>=', '=' only in '=='.
    if (n == 1 && pos_ + 1 < t_.size() && (t_[pos_ + 1] == '=' || t_[pos_ + 1] == t_[pos_])) return false;
    pos_ += n;
    return true;
  }
  std::optional<int64_t> Or() {
    auto v = And();
    while (v && Next("||")) {
      auto r = And();
      if (!r) return std::nullopt;
      v = (*v != 0 || *r != 0) ? 1 : 0;
    }
    return v;
  }
  std::optional<int64_t> And() {
    auto v = Compare();
    while (v && Next("&&")) {
      auto r = Compare();
      if (!r) return std::nullopt;
      v = (*v != 0 && *r != 0) ? 1 : 0;
    }
    return v;
  }
  std::optional<int64_t> Compare() {
    auto v = Sum();
    if (!v) return v;
    static const char* kOps[] = {"<=", ">=", "==", "!=", "<", ">"};
    for (const char* op : kOps) {
      if (!Next(op)) continue;
      auto r = Sum();
      if (!r) return std::nullopt;
      std::string o = op;
      bool b = o == "<=" ? *v <= *r : o == ">=" ? *v >= *r : o == "==" ? *v == *r : o == "!=" ? *v != *r
               : o == "<"  ? *v < *r  : *v > *r;
      return b ? 1 : 0;
    }
    return v;
  }
  std::optional<int64_t> Sum() {
    auto v = Product();
    while (v) {
      Skip();
      if (pos_ >= t_.size() || (t_[pos_] != '+' && t_[pos_] != '-')) break;
      char op = t_[pos_++];
      auto r = Product();
      if (!r) return std::nullopt;
      int64_t out;
      if (op == '+' ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out)) return Overflow();
      v = out;
    }
    return v;
  }
  // Formulas are evaluated exactly: a value past 64 bits is an error, not
  // a wrapped (undefined) one.
  std::optional<int64_t> Overflow() {
    err_ = "the value does not fit in 64 bits";
    return std::nullopt;
  }
  std::optional<int64_t> Product() {
    auto v = Atom();
    while (v) {
      Skip();
      if (pos_ >= t_.size() || (t_[pos_] != '*' && t_[pos_] != '/' && t_[pos_] != '%')) break;
      char op = t_[pos_++];
      auto r = Atom();
      if (!r) return std::nullopt;
      if (op != '*' && *r == 0) {
        err_ = "division by zero";
        return std::nullopt;
      }
      int64_t out;
      if (op == '*' ? __builtin_mul_overflow(*v, *r, &out) : (*v == INT64_MIN && *r == -1)) return Overflow();
      v = op == '*' ? out : op == '/' ? *v / *r : *v % *r;
    }
    return v;
  }
  // '(' sum ')', at the '('.
  std::optional<int64_t> Parenthesized() {
    ++pos_;
    auto v = Or();
    Skip();
    if (!v || pos_ >= t_.size() || t_[pos_] != ')') {
      if (err_.empty()) err_ = "expected ')'";
      return std::nullopt;
    }
    ++pos_;
    return v;
  }

  std::optional<int64_t> Atom() {
    Skip();
    if (pos_ >= t_.size()) {
      err_ = "unexpected end";
      return std::nullopt;
    }
    char c = t_[pos_];
    if (c == '(') return Parenthesized();
    if (c == '!' && (pos_ + 1 >= t_.size() || t_[pos_ + 1] != '=')) {
      ++pos_;
      auto v = Atom();
      return v ? std::optional<int64_t>(*v == 0 ? 1 : 0) : std::nullopt;
    }
    if (c == '-') {
      ++pos_;
      auto v = Atom();
      if (v && *v == INT64_MIN) return Overflow();
      return v ? std::optional<int64_t>(-*v) : std::nullopt;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_])))
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, t_[pos_++] - '0', &v)) return Overflow();
      while (pos_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[pos_]))) ++pos_;  // type suffix
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = pos_;
      while (pos_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_')) ++pos_;
      std::string name = t_.substr(b, pos_ - b);
      Skip();
      if (pos_ < t_.size() && t_[pos_] == '(' && (name == "max" || name == "min")) {
        // max(a, b), min(a, b): the workspace of a graph's launch plan.
        ++pos_;
        auto a = Or();
        Skip();
        if (!a || pos_ >= t_.size() || t_[pos_] != ',') {
          if (err_.empty()) err_ = "expected ',' in " + name + "(...)";
          return std::nullopt;
        }
        auto b = Parenthesized();  // from the ',' to the ')'
        if (!b) return std::nullopt;
        return name == "max" ? std::max(*a, *b) : std::min(*a, *b);
      }
      if (pos_ < t_.size() && t_[pos_] == '(') return Parenthesized();  // a cast such as i64(N)
      // A condition the compiler simplified to a constant (`where N % V == 0`
      // with V = 1 is "true").
      if (name == "true" || name == "false") return name == "true" ? 1 : 0;
      auto it = names_.find(name);
      if (it == names_.end()) {
        err_ = "unknown name '" + name + "'";
        return std::nullopt;
      }
      return it->second;
    }
    err_ = std::string("unexpected '") + c + "'";
    return std::nullopt;
  }

  const std::string& t_;
  const std::map<std::string, int64_t>& names_;
  size_t pos_ = 0;
  std::string err_;
};

bool IsName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

bool ParseDtype(const std::string& s, tmc_dtype* d) {
  for (int i = 0; i <= TMC_F64; ++i)
    if (s == kDtypeNames[i]) {
      *d = static_cast<tmc_dtype>(i);
      return true;
    }
  return false;
}

std::string TmaShapeError(const std::vector<int64_t>& shape, size_t elem_bytes) {
  if (shape.size() < 2) return "";
  int64_t row = shape.back() * static_cast<int64_t>(elem_bytes);
  if (row % 16 == 0) return "";
  return "is passed as a TMA tensor map, whose rows must be a multiple of 16 bytes: dimension " +
         std::to_string(shape.size() - 1) + " is " + std::to_string(shape.back()) + " (" + std::to_string(row) + " bytes)";
}

bool ParseParamInfo(const Json& p, ParamInfo* info) {
  const Json* pn = p.Get("name");
  const Json* kind = p.Get("kind");
  const Json* dtype = p.Get("dtype");
  if (!pn || !kind || !dtype || !ParseDtype(dtype->str, &info->dtype)) return false;
  info->name = pn->str;
  info->kind = kind->str == "tensor"  ? ParamInfo::Kind::Tensor
               : kind->str == "shape" ? ParamInfo::Kind::Shape
                                      : ParamInfo::Kind::Scalar;
  if (const Json* shape = p.Get("shape"))
    for (const Json& d : shape->items) info->shape.push_back(d.str);
  if (const Json* layout = p.Get("layout"); layout && layout->kind == Json::Kind::String)
    info->dense = layout->str == "row_major" || layout->str == "col_major";
  if (const Json* tma = p.Get("tma"); tma && tma->kind == Json::Kind::Object) {
    info->tma = true;
    if (const Json* box = tma->Get("box"))
      for (const Json& b : box->items) info->tma_box.push_back(static_cast<int64_t>(b.number));
    if (const Json* sw = tma->Get("swizzle")) info->tma_swizzle = static_cast<int>(sw->number);
    if (!info->tma_box.empty() && info->tma_box.size() != info->shape.size()) return false;
  }
  return info->shape.size() <= TMC_MAX_RANK;
}

const char* DtypeName(tmc_dtype d) { return d >= TMC_BOOL && d <= TMC_F64 ? kDtypeNames[d] : "?"; }

size_t DtypeBytes(tmc_dtype d) {
  switch (d) {
    case TMC_BOOL: case TMC_I8: case TMC_U8: return 1;
    case TMC_I16: case TMC_U16: case TMC_F16: case TMC_BF16: return 2;
    case TMC_I32: case TMC_U32: case TMC_F32: return 4;
    default: return 8;
  }
}

std::optional<int64_t> EvalFormula(const std::string& formula, const std::map<std::string, int64_t>& names,
                                   std::string* error) {
  return Formula(formula, names).Run(error);
}

bool ParseKernelMetadata(const std::string& text, std::vector<KernelSignature>* kernels, std::string* error) {
  Json root;
  if (!ParseJson(text, &root, error)) return false;
  const Json* list = root.Get("kernels");
  if (!list || list->kind != Json::Kind::Array) {
    *error = "no \"kernels\" array";
    return false;
  }
  for (const Json& k : list->items) {
    KernelSignature sig;
    const Json* name = k.Get("name");
    const Json* params = k.Get("params");
    if (!name || name->kind != Json::Kind::String || !params || params->kind != Json::Kind::Array) {
      *error = "a kernel without a name or parameters";
      return false;
    }
    sig.name = name->str;
    if (const Json* imp = k.Get("implements"); imp && imp->kind == Json::Kind::String) sig.implements = imp->str;
    for (const Json& p : params->items) {
      ParamInfo info;
      if (!ParseParamInfo(p, &info)) {
        *error = info.shape.size() > TMC_MAX_RANK ? "tensor '" + info.name + "' has more than 8 dimensions"
                                                   : "malformed parameter of kernel '" + sig.name + "'";
        return false;
      }
      sig.params.push_back(info);
    }
    if (const Json* grid = k.Get("grid"))
      for (const Json& g : grid->items) sig.grid.push_back(g.str);
    if (const Json* block = k.Get("block"))
      for (const Json& b : block->items) sig.block.push_back(static_cast<int64_t>(b.number));
    if (const Json* c = k.Get("cluster"))
      for (size_t d = 0; d < c->items.size() && d < 3; ++d) sig.cluster[d] = std::max<int64_t>(1, static_cast<int64_t>(c->items[d].number));
    if (const Json* s = k.Get("shared_bytes")) sig.shared_bytes = static_cast<int64_t>(s->number);
    if (const Json* d = k.Get("dynamic_shared")) sig.dynamic_shared = d->b;
    if (const Json* b = k.Get("index_bits")) sig.index_bits = b->number == 32 ? 32 : 64;
    if (const Json* r = k.Get("requires"))
      for (const Json& c : r->items) sig.launch_conditions.push_back(c.str);
    if (sig.grid.size() > 3 || sig.block.size() > 3) {
      *error = "kernel '" + sig.name + "' has more than 3 launch dimensions";
      return false;
    }
    kernels->push_back(std::move(sig));
  }
  return true;
}

bool CheckArguments(const KernelSignature& sig, const tmc_arg* args, int num_args, CheckedLaunch* out,
                    std::string* error) {
  *out = CheckedLaunch{};  // nothing from an earlier check carries over
  std::vector<const ParamInfo*> written;
  for (const ParamInfo& p : sig.params)
    if (p.kind != ParamInfo::Kind::Shape) written.push_back(&p);
  if (num_args != static_cast<int>(written.size()) || (num_args > 0 && !args)) {
    *error = "kernel '" + sig.name + "' takes " + std::to_string(written.size()) + " arguments, " +
             std::to_string(num_args) + " given";
    return false;
  }
  std::map<std::string, std::string> bound_by;  // symbol -> argument that bound it
  auto where = [&](size_t i) { return "argument " + std::to_string(i + 1) + " ('" + written[i]->name + "')"; };
  // First pass: bind symbols that stand alone as a dimension.
  for (size_t i = 0; i < written.size(); ++i) {
    const ParamInfo& p = *written[i];
    const tmc_arg& a = args[i];
    if (p.kind == ParamInfo::Kind::Scalar) {
      if (a.is_tensor) {
        *error = where(i) + " must be a scalar " + DtypeName(p.dtype) + ", not a tensor";
        return false;
      }
      if (p.dtype <= TMC_U64) out->symbols[p.name] = a.value.i;
      continue;
    }
    if (!a.is_tensor) {
      *error = where(i) + " must be a tensor, not a scalar";
      return false;
    }
    if (a.tensor.dtype != p.dtype) {
      *error = where(i) + " has dtype " + DtypeName(a.tensor.dtype) + " but the kernel expects " + DtypeName(p.dtype);
      return false;
    }
    if (a.tensor.rank != static_cast<int>(p.shape.size())) {
      *error = where(i) + " has rank " + std::to_string(a.tensor.rank) + " but the kernel expects " +
               std::to_string(p.shape.size());
      return false;
    }
    if (a.tensor.data % 16 != 0) {
      *error = where(i) + " is not 16-byte aligned";
      return false;
    }
    for (size_t d = 0; d < p.shape.size(); ++d) {
      int64_t extent = a.tensor.shape[d];
      if (extent <= 0 || extent > INT32_MAX) {
        *error = where(i) + ": dimension " + std::to_string(d) + " is " + std::to_string(extent) +
                 ", outside [1, 2^31)";
        return false;
      }
      const std::string& f = p.shape[d];
      if (!IsName(f)) continue;
      auto it = out->symbols.find(f);
      if (it == out->symbols.end()) {
        out->symbols[f] = extent;
        bound_by[f] = where(i);
      } else if (it->second != extent) {
        *error = where(i) + ": dimension " + std::to_string(d) + " is " + std::to_string(extent) + " but " + f +
                 " = " + std::to_string(it->second) + " from " + bound_by[f];
        return false;
      }
    }
    // A TMA tensor map's strides are multiples of 16 bytes (all but the
    // innermost, which are multiples of the row): the GPU's encoding
    // refuses others, so the CPU executor does too.
    if (p.tma && !p.tma_box.empty()) {  // a map the kernel copies through
      std::string why = TmaShapeError(std::vector<int64_t>(a.tensor.shape, a.tensor.shape + p.shape.size()), DtypeBytes(p.dtype));
      if (!why.empty()) {
        *error = where(i) + " " + why;
        return false;
      }
    }
    // Each dimension is below 2^31, so the product of a rank <= 8 shape
    // cannot overflow in double's exact range before passing 2^31.
    if (sig.index_bits == 32 && p.dense) {
      double elements = 1;
      for (size_t d = 0; d < p.shape.size(); ++d) elements *= static_cast<double>(a.tensor.shape[d]);
      if (elements > static_cast<double>(INT32_MAX)) {
        char count[32];
        std::snprintf(count, sizeof count, "%.0f", elements);
        *error = where(i) + " has " + count + " elements, but kernel '" + sig.name +
                 "' was compiled with 32-bit element offsets (at most 2^31 - 1 elements per tensor); compile it "
                 "with -findex-bits=64";
        return false;
      }
    }
  }
  // Second pass: dimensions given by formulas (constants, 2 * N, ...).
  for (size_t i = 0; i < written.size(); ++i) {
    const ParamInfo& p = *written[i];
    if (p.kind != ParamInfo::Kind::Tensor) continue;
    for (size_t d = 0; d < p.shape.size(); ++d) {
      if (IsName(p.shape[d])) continue;
      std::optional<int64_t> want = EvalFormula(p.shape[d], out->symbols, error);
      if (!want) return false;
      if (*want != args[i].tensor.shape[d]) {
        *error = where(i) + ": dimension " + std::to_string(d) + " is " + std::to_string(args[i].tensor.shape[d]) +
                 " but the kernel requires " + p.shape[d] + " = " + std::to_string(*want);
        return false;
      }
    }
  }
  for (const ParamInfo& p : sig.params)
    if (p.kind == ParamInfo::Kind::Shape && !out->symbols.count(p.name)) {
      *error = "shape symbol '" + p.name + "' is not bound by any argument";
      return false;
    }
  // Launch conditions (`where BC >= C`): this compiled candidate serves
  // only the shapes for which they hold.
  for (const std::string& c : sig.launch_conditions) {
    std::optional<int64_t> v = EvalFormula(c, out->symbols, error);
    if (!v) return false;
    if (*v == 0) {
      std::string values;
      for (const auto& [n, x] : out->symbols)
        if (c.find(n) != std::string::npos) values += (values.empty() ? "" : ", ") + n + " = " + std::to_string(x);
      // (The caller names the kernel: "kernel 'k': compiled for ...".)
      *error = "compiled for shapes where " + c + " holds, not for " +
               (values.empty() ? std::string("these arguments") : values) +
               ": these shapes need a build with other compile-time values (-D)";
      return false;
    }
  }
  for (size_t g = 0; g < sig.grid.size(); ++g) {
    std::optional<int64_t> v = EvalFormula(sig.grid[g], out->symbols, error);
    if (!v) return false;
    if (*v <= 0 || *v > kMaxGridDim[g]) {
      *error = "grid dimension " + std::to_string(g) + " (" + sig.grid[g] + ") is " + std::to_string(*v) +
               (*v <= 0 ? ", not positive" : ", more than the " + std::to_string(kMaxGridDim[g]) + " blocks the hardware allows");
      return false;
    }
    out->grid[g] = *v;
  }
  for (size_t b = 0; b < sig.block.size(); ++b) out->block[b] = sig.block[b];
  std::copy(sig.cluster, sig.cluster + 3, out->cluster);
  *error = ClusterGridError(out->grid, out->cluster);
  return error->empty();
}

std::string ClusterGridError(const int64_t grid[3], const int64_t cluster[3]) {
  for (int d = 0; d < 3; ++d)
    if (grid[d] % cluster[d] != 0)
      return "the grid (" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
             ") is not a whole number of clusters of (" + std::to_string(cluster[0]) + ", " + std::to_string(cluster[1]) +
             ", " + std::to_string(cluster[2]) + ") blocks: dimension " + std::to_string(d) + " must be a multiple of " +
             std::to_string(cluster[d]);
  return "";
}

uint64_t PackScalar(tmc_dtype dtype, const tmc_arg& a) {
  uint64_t slot = 0;
  if (dtype == TMC_F16 || dtype == TMC_BF16 || dtype == TMC_F32 || dtype == TMC_F64) SetElement(&slot, dtype, 0, a.value.f);
  else std::memcpy(&slot, &a.value.i, DtypeBytes(dtype));  // little-endian
  return slot;
}

}  // namespace tmc::runtime
