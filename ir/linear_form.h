// linear-form: integer expressions as c + k1 * x1 + k2 * x2 + ..., to
// decide comparisons between values computed in different places.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tmc::ir {

/// The values of immutable lets in scope, for those whose value means the
/// same wherever the variable is visible (Substitutable).
using LetValues = std::unordered_map<const Var*, Expr>;

/// The lets in scope during a walk over a function's body: a Seq's go out
/// of scope at its end (`Mark()` at its start, `Restore(mark)` at its end).
class ScopedLets {
 public:
  const LetValues& values() const { return values_; }
  void Add(const Var* v, Expr value) {
    values_[v] = std::move(value);
    log_.push_back(v);
  }
  size_t Mark() const { return log_.size(); }
  void Restore(size_t mark) {
    for (size_t k = mark; k < log_.size(); ++k) values_.erase(log_[k]);
    log_.resize(mark);
  }

 private:
  LetValues values_;
  std::vector<const Var*> log_;  // in order of definition
};

/// True if `e` reads no memory and no mutable variable and calls nothing
/// but pure built-ins (thread indices, math): its value is fixed once its
/// variables are, so a let of it can stand for its variable.
bool Substitutable(const Expr& e);

/// a - b when that is the same constant for every value of the variables
/// (lets in `lets` replaced by their values), modulo 2^bits of the
/// integer type of a and b, as a value of that type; none when unknown.
///
/// Unrolling a row-by-row pass over fragment tiles leaves `if (i == r)`
/// with i and r lets of the lane's row plus different constants (`w / 4
/// + 8` against `w / 4`): false in every thread, and decided here
/// before LLVM sees a block for each of them (attention's online softmax
/// had 256).
std::optional<int64_t> ConstantDifference(const Expr& a, const Expr& b, const LetValues& lets);

}  // namespace tmc::ir
