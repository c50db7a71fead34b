// known-offset-bits: see known_offset_bits.h.
#include "codegen/nvptx/known_offset_bits.h"

#include <cassert>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

namespace tmc::codegen {

llvm::KnownBits KnownOffsetBits::Known(const llvm::Value* v, int depth) {
  assert(v->getType()->isIntegerTy() && "the known bits of an integer");
  unsigned bits = v->getType()->getIntegerBitWidth();
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return llvm::KnownBits::makeConstant(c->getValue());
  auto* op = llvm::dyn_cast<llvm::Instruction>(v);
  if (!op) return llvm::KnownBits(bits);
  // What an earlier question found stays known, also past this one's depth.
  if (auto it = memo_.find(v); it != memo_.end() && (it->second.depth >= depth || depth <= 0)) return it->second.known;
  if (depth <= 0) return llvm::KnownBits(bits);
  auto operand = [&](unsigned i) { return Known(op->getOperand(i), depth - 1); };
  auto exact = [&] { return llvm::cast<llvm::PossiblyExactOperator>(op)->isExact(); };
  llvm::KnownBits k(bits);
  switch (op->getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Sub:
      k = llvm::KnownBits::computeForAddSub(op->getOpcode() == llvm::Instruction::Add, false, false, operand(0),
                                            operand(1));
      break;
    case llvm::Instruction::Mul: k = llvm::KnownBits::mul(operand(0), operand(1)); break;
    case llvm::Instruction::Shl: k = llvm::KnownBits::shl(operand(0), operand(1)); break;
    case llvm::Instruction::LShr: k = llvm::KnownBits::lshr(operand(0), operand(1), false, exact()); break;
    case llvm::Instruction::AShr: k = llvm::KnownBits::ashr(operand(0), operand(1), false, exact()); break;
    case llvm::Instruction::UDiv: k = llvm::KnownBits::udiv(operand(0), operand(1), exact()); break;
    case llvm::Instruction::SDiv: k = llvm::KnownBits::sdiv(operand(0), operand(1), exact()); break;
    case llvm::Instruction::URem: k = llvm::KnownBits::urem(operand(0), operand(1)); break;
    case llvm::Instruction::SRem: k = llvm::KnownBits::srem(operand(0), operand(1)); break;
    case llvm::Instruction::And: k = operand(0) & operand(1); break;
    case llvm::Instruction::Or: k = operand(0) | operand(1); break;
    case llvm::Instruction::Xor: k = operand(0) ^ operand(1); break;
    case llvm::Instruction::ZExt: k = operand(0).zext(bits); break;
    case llvm::Instruction::SExt: k = operand(0).sext(bits); break;
    case llvm::Instruction::Trunc: k = operand(0).trunc(bits); break;
    case llvm::Instruction::Select:
      k = Known(op->getOperand(1), depth - 1).intersectWith(Known(op->getOperand(2), depth - 1));
      break;
    case llvm::Instruction::Call:
      // The emitter's min, max and abs.
      if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(op)) {
        switch (call->getIntrinsicID()) {
          case llvm::Intrinsic::smin: k = llvm::KnownBits::smin(operand(0), operand(1)); break;
          case llvm::Intrinsic::smax: k = llvm::KnownBits::smax(operand(0), operand(1)); break;
          case llvm::Intrinsic::umin: k = llvm::KnownBits::umin(operand(0), operand(1)); break;
          case llvm::Intrinsic::umax: k = llvm::KnownBits::umax(operand(0), operand(1)); break;
          case llvm::Intrinsic::abs: k = operand(0).abs(); break;
          default: break;
        }
      }
      break;
    default: break;
  }
  // A shift by too much, or a division by zero, is poison: nothing known
  // (LLVM's answer may then be a conflict, zeros and ones at once).
  if (k.hasConflict()) k = llvm::KnownBits(bits);
  memo_[v] = Entry{k, depth};
  return k;
}

}  // namespace tmc::codegen
