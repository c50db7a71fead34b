#include "codegen/nvptx/value_range.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

namespace tmc::codegen {

namespace {

llvm::ConstantRange Between(unsigned bits, int64_t lo, int64_t hi_exclusive) {
  return llvm::ConstantRange(llvm::APInt(bits, static_cast<uint64_t>(lo), true),
                             llvm::APInt(bits, static_cast<uint64_t>(hi_exclusive), true));
}

// The special registers' ranges; the full range for other calls unless
// they carry a range attribute.
llvm::ConstantRange CallRange(const llvm::CallBase* call, const std::array<int64_t, 3>& block, int depth) {
  unsigned bits = call->getType()->getIntegerBitWidth();
  llvm::ConstantRange full(bits, true);
  auto extent = [&](int d) { return block[static_cast<size_t>(d)]; };
  if (const llvm::Function* f = call->getCalledFunction()) {
    namespace LI = llvm::Intrinsic;
    switch (f->getIntrinsicID()) {
      case LI::nvvm_read_ptx_sreg_tid_x:
      case LI::nvvm_read_ptx_sreg_tid_y:
      case LI::nvvm_read_ptx_sreg_tid_z: {
        int d = static_cast<int>(f->getIntrinsicID() - LI::nvvm_read_ptx_sreg_tid_x);
        return Between(bits, 0, extent(d) > 0 ? extent(d) : 1024);
      }
      case LI::nvvm_read_ptx_sreg_ntid_x:
      case LI::nvvm_read_ptx_sreg_ntid_y:
      case LI::nvvm_read_ptx_sreg_ntid_z: {
        int d = static_cast<int>(f->getIntrinsicID() - LI::nvvm_read_ptx_sreg_ntid_x);
        return extent(d) > 0 ? Between(bits, extent(d), extent(d) + 1) : Between(bits, 1, 1025);
      }
      case LI::nvvm_read_ptx_sreg_ctaid_x:
      case LI::nvvm_read_ptx_sreg_ctaid_y:
      case LI::nvvm_read_ptx_sreg_ctaid_z: return Between(bits, 0, INT32_MAX);  // below %nctaid
      case LI::nvvm_read_ptx_sreg_nctaid_x:
      case LI::nvvm_read_ptx_sreg_nctaid_y:
      case LI::nvvm_read_ptx_sreg_nctaid_z: return Between(bits, 1, int64_t{1} << 31);
      case LI::smin:
      case LI::smax:
      case LI::umin:
      case LI::umax: {
        llvm::ConstantRange a = ValueRange(call->getArgOperand(0), block, depth - 1);
        llvm::ConstantRange b = ValueRange(call->getArgOperand(1), block, depth - 1);
        switch (f->getIntrinsicID()) {
          case LI::smin: return a.smin(b);
          case LI::smax: return a.smax(b);
          case LI::umin: return a.umin(b);
          default: return a.umax(b);
        }
      }
      default: break;
    }
  }
  if (std::optional<llvm::ConstantRange> r = call->getRange()) return *r;
  return full;
}

}  // namespace

llvm::ConstantRange ValueRange(const llvm::Value* v, const std::array<int64_t, 3>& block, int depth) {
  unsigned bits = v->getType()->getIntegerBitWidth();
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return llvm::ConstantRange(c->getValue());
  llvm::ConstantRange full(bits, true);
  if (depth <= 0) return full;
  if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
    llvm::ConstantRange a = ValueRange(op->getOperand(0), block, depth - 1);
    llvm::ConstantRange b = ValueRange(op->getOperand(1), block, depth - 1);
    // The plain (wrapping) operations: no-wrap flags promise what the range
    // is asked to prove, so they are not taken for granted here.
    return a.binaryOp(op->getOpcode(), b);
  }
  if (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) {
    if (!cast->getSrcTy()->isIntegerTy()) return full;
    return ValueRange(cast->getOperand(0), block, depth - 1).castOp(cast->getOpcode(), bits);
  }
  if (auto* s = llvm::dyn_cast<llvm::SelectInst>(v))
    return ValueRange(s->getTrueValue(), block, depth - 1).unionWith(ValueRange(s->getFalseValue(), block, depth - 1));
  if (auto* call = llvm::dyn_cast<llvm::CallBase>(v)) return CallRange(call, block, depth);
  return full;
}

}  // namespace tmc::codegen
