// known-offset-bits: the bits of an element offset known from the arithmetic
// that computed it, above all how many low bits are zero.
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Type.h>
#include <llvm/IR/Value.h>
#include <llvm/Support/KnownBits.h>

namespace tmc::codegen {

/// The emitter asks, for each access, how many low bits of its element
/// offset are zero: the alignment of the access, which LLVM's load/store
/// vectorizer needs. LLVM's computeKnownBits answers by walking the
/// offset's arithmetic afresh each time, six operations deep; the offsets
/// of an unrolled tile share most of that arithmetic, and those walks cost
/// a sixth of the emitter's time. This walks each value once and keeps
/// what it found: the known bits of constants, + - * << >> / % & | ^,
/// min, max and abs, casts and selects, through `depth` operations.
/// Anything else (a load, an argument, another call, a phi, a constant
/// expression) is unknown, and what computeKnownBits derives from
/// assumptions, dominating conditions or a select's condition is not
/// looked for: the emitter's offsets have none of those. On every kernel of
/// the repository the answers were compared and are the same; where a
/// value was already known from an earlier, deeper question they can be
/// more (and still true).
///
/// Values must not be deleted or modified (operands, flags) while the
/// analysis lives: the emitter does neither.
class KnownOffsetBits {
 public:
  /// The low bits of integer `v` known to be zero (its width when `v` is
  /// known to be 0).
  unsigned TrailingZeros(const llvm::Value* v) {
    return v->getType()->isIntegerTy() ? Known(v, kDepth).countMinTrailingZeros() : 0;
  }
  /// The known bits of integer `v` (asserted), looking `depth` operations deep.
  llvm::KnownBits Known(const llvm::Value* v, int depth);

  static constexpr int kDepth = 6;  // computeKnownBits's

 private:
  struct Entry {
    llvm::KnownBits known;
    int depth;  // how deep it looked: a deeper question looks again
  };
  llvm::DenseMap<const llvm::Value*, Entry> memo_;
};

}  // namespace tmc::codegen
