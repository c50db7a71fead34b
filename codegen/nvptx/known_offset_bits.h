// known-offset-bits: the bits of an element offset known from the arithmetic
// that computed it, above all how many low bits are zero.
#pragma once

#include <llvm/ADT/DenseMap.h>
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
/// casts and selects, through `depth` operations. Anything else (a load,
/// an argument, a call, a phi) is unknown. On the emitter's offsets, which
/// carry no assumptions or conditions for computeKnownBits to use, the
/// answers are the same (every kernel of the repository, compared); where
/// a value was already known from an earlier question, they can be more.
///
/// Values must not be deleted while the analysis lives (the emitter
/// deletes none).
class KnownOffsetBits {
 public:
  unsigned TrailingZeros(const llvm::Value* v) { return Known(v, kDepth).countMinTrailingZeros(); }
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
