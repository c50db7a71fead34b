// local-cse: see local_cse.h.
#include "codegen/nvptx/local_cse.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Operator.h>

#include <algorithm>
#include <cstdint>
#include <functional>

namespace tmc::codegen {
namespace {

bool IsCommutative(unsigned opcode) {
  switch (opcode) {
    case llvm::Instruction::Add: case llvm::Instruction::Mul: case llvm::Instruction::And:
    case llvm::Instruction::Or: case llvm::Instruction::Xor: case llvm::Instruction::FAdd:
    case llvm::Instruction::FMul: return true;
    default: return false;
  }
}

// The operands of a commutative operation in a fixed order (a + b and
// b + a are one value).
void Canonicalize(unsigned opcode, llvm::MutableArrayRef<llvm::Value*> operands) {
  if (operands.size() == 2 && IsCommutative(opcode) && std::less<llvm::Value*>()(operands[1], operands[0]))
    std::swap(operands[0], operands[1]);
}

// A multiplicative hash of the words (llvm::hash_combine costs several
// times as much, and this table only needs to spread pointers).
uint64_t HashOf(const CseShape& s) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t h = 0;
  auto mix = [&](uint64_t word) { h = (h ^ word) * kMul; h ^= h >> 29; };
  mix(s.opcode);
  mix(reinterpret_cast<uintptr_t>(s.type));
  mix(reinterpret_cast<uintptr_t>(s.source));
  for (llvm::Value* v : s.operands) mix(reinterpret_cast<uintptr_t>(v));
  for (unsigned w : s.extra) mix(w);
  return h >= llvm::DenseMapInfo<uint64_t>::getTombstoneKey() ? 0 : h;  // the two keys DenseMap reserves
}

// The special registers whose value a thread reads the same wherever it
// reads them: its coordinates and the launch's shape. (Not %clock, nor
// %warpid or %smid, which PTX calls volatile: a thread may move.)
bool IsLaunchRegister(llvm::Intrinsic::ID id) {
  namespace LI = llvm::Intrinsic;
  switch (id) {
    case LI::nvvm_read_ptx_sreg_tid_x: case LI::nvvm_read_ptx_sreg_tid_y: case LI::nvvm_read_ptx_sreg_tid_z:
    case LI::nvvm_read_ptx_sreg_ctaid_x: case LI::nvvm_read_ptx_sreg_ctaid_y: case LI::nvvm_read_ptx_sreg_ctaid_z:
    case LI::nvvm_read_ptx_sreg_ntid_x: case LI::nvvm_read_ptx_sreg_ntid_y: case LI::nvvm_read_ptx_sreg_ntid_z:
    case LI::nvvm_read_ptx_sreg_nctaid_x: case LI::nvvm_read_ptx_sreg_nctaid_y: case LI::nvvm_read_ptx_sreg_nctaid_z:
      return true;
    default: return false;
  }
}

// The instructions this table knows: no memory, no side effects, no
// control flow; of calls, the reads of the launch registers.
bool IsPure(const llvm::Instruction* i) {
  if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(i)) return IsLaunchRegister(call->getIntrinsicID());
  return llvm::isa<llvm::BinaryOperator, llvm::UnaryOperator, llvm::CastInst, llvm::CmpInst, llvm::SelectInst,
                   llvm::GetElementPtrInst, llvm::ExtractValueInst, llvm::InsertValueInst, llvm::ExtractElementInst,
                   llvm::InsertElementInst, llvm::ShuffleVectorInst>(i);
}

// Calls `f` with the shape of the pure instruction `i`.
template <typename F>
auto WithShapeOf(llvm::Instruction* i, F&& f) {
  llvm::SmallVector<llvm::Value*, 4> operands;
  llvm::SmallVector<unsigned, 4> extra;
  CseShape s;
  s.opcode = i->getOpcode();
  s.type = i->getType();
  if (auto* e = llvm::dyn_cast<llvm::ExtractValueInst>(i)) {
    operands.push_back(e->getAggregateOperand());
    extra.assign(e->idx_begin(), e->idx_end());
  } else if (auto* v = llvm::dyn_cast<llvm::InsertValueInst>(i)) {
    operands = {v->getAggregateOperand(), v->getInsertedValueOperand()};
    extra.assign(v->idx_begin(), v->idx_end());
  } else if (auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(i)) {
    operands = {sv->getOperand(0), sv->getOperand(1)};
    for (int m : sv->getShuffleMask()) extra.push_back(static_cast<unsigned>(m));
  } else {
    operands.assign(i->op_begin(), i->op_end());
    if (auto* c = llvm::dyn_cast<llvm::CmpInst>(i)) extra.push_back(c->getPredicate());
    if (auto* g = llvm::dyn_cast<llvm::GetElementPtrInst>(i)) s.source = g->getSourceElementType();
  }
  Canonicalize(s.opcode, operands);
  s.operands = operands;
  s.extra = extra;
  return f(s);
}

bool SameShape(const CseShape& a, const CseShape& b) {
  return a.opcode == b.opcode && a.type == b.type && a.source == b.source && a.operands == b.operands &&
         a.extra == b.extra;
}

}  // namespace

unsigned LocalCse::FlagsOf(const llvm::Instruction* i) {
  unsigned flags = 0;
  if (auto* o = llvm::dyn_cast<llvm::OverflowingBinaryOperator>(i)) {
    if (o->hasNoUnsignedWrap()) flags |= kNuw;
    if (o->hasNoSignedWrap()) flags |= kNsw;
  }
  if (auto* t = llvm::dyn_cast<llvm::TruncInst>(i)) {
    if (t->hasNoUnsignedWrap()) flags |= kNuw;
    if (t->hasNoSignedWrap()) flags |= kNsw;
  }
  if (auto* e = llvm::dyn_cast<llvm::PossiblyExactOperator>(i); e && e->isExact()) flags |= kExact;
  if (auto* d = llvm::dyn_cast<llvm::PossiblyDisjointInst>(i); d && d->isDisjoint()) flags |= kDisjoint;
  if (auto* n = llvm::dyn_cast<llvm::PossiblyNonNegInst>(i); n && n->hasNonNeg()) flags |= kNonNeg;
  if (auto* g = llvm::dyn_cast<llvm::GetElementPtrInst>(i)) flags |= g->getNoWrapFlags().getRaw() << kGepShift;
  return flags;
}

void LocalCse::PopTo(size_t depth) {
  while (chain_.size() > depth) {
    for (size_t k = undo_.size(); k-- > chain_.back().undo_from;) {
      auto [hash, previous] = undo_[k];
      if (previous) table_[hash] = previous;
      else table_.erase(hash);
    }
    undo_.resize(chain_.back().undo_from);
    depth_.erase(chain_.back().block);
    chain_.pop_back();
  }
}

void LocalCse::Enter(llvm::BasicBlock* block, llvm::BasicBlock* dominator) {
  if (auto it = depth_.find(block); it != depth_.end()) {
    PopTo(it->second + 1);
    return;
  }
  auto it = dominator ? depth_.find(dominator) : depth_.end();
  PopTo(it == depth_.end() ? 0 : it->second + 1);
  depth_[block] = chain_.size();
  chain_.push_back({block, undo_.size()});
}

llvm::Value* LocalCse::Find(const CseShape& shape, unsigned flags, const llvm::FastMathFlags* fmf) const {
  if (!builder_ || table_.empty()) return nullptr;
  llvm::BasicBlock* block = builder_->GetInsertBlock();
  if (!block || builder_->GetInsertPoint() != block->end() || chain_.back().block != block) return nullptr;
  auto it = table_.find(HashOf(shape));
  if (it == table_.end()) return nullptr;
  llvm::Instruction* found = it->second;
  if (!WithShapeOf(found, [&](const CseShape& s) { return SameShape(s, shape); })) return nullptr;
  // The flags say what may be assumed of the operands' values: one
  // instruction stands for another only with exactly the same.
  if (FlagsOf(found) != flags) return nullptr;
  if (llvm::isa<llvm::FPMathOperator>(found) &&
      found->getFastMathFlags() != (fmf ? *fmf : builder_->getFastMathFlags()))
    return nullptr;
  return found;
}

llvm::Value* LocalCse::FindRegisterRead(llvm::Function* read) const {
  if (!IsLaunchRegister(read->getIntrinsicID())) return nullptr;
  llvm::Value* callee[] = {read};  // a call's operands: its arguments (none), then the callee
  return Find({llvm::Instruction::Call, read->getReturnType(), nullptr, callee, {}}, 0);
}

llvm::Value* LocalCse::KnownValue(const llvm::Value* pointer, llvm::Type* type) const {
  if (!builder_ || known_.empty()) return nullptr;
  auto it = known_.find(pointer);
  if (it == known_.end()) return nullptr;
  llvm::BasicBlock* block = builder_->GetInsertBlock();
  if (!block || builder_->GetInsertPoint() != block->end() || it->second.first != block) return nullptr;
  return it->second.second->getType() == type ? it->second.second : nullptr;
}

void LocalCse::Record(llvm::Instruction* i, llvm::BasicBlock::iterator at) {
  bool at_end = at.isValid() && at == at.getNodeParent()->end();
  if (!private_.empty()) {
    // A store anywhere else than at the end would make the end's value
    // unknown; a load there reads what the end's value says.
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(i); store && private_.contains(store->getPointerOperand())) {
      if (at_end) known_[store->getPointerOperand()] = {i->getParent(), store->getValueOperand()};
      else known_.erase(store->getPointerOperand());
      return;
    }
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(i); load && at_end && private_.contains(load->getPointerOperand())) {
      known_[load->getPointerOperand()] = {i->getParent(), load};
      return;
    }
  }
  if (!at_end || !IsPure(i)) return;
  // A block the emitter did not announce: a chain of its own.
  if (chain_.empty() || chain_.back().block != i->getParent()) Enter(i->getParent(), nullptr);
  // The latest of a shape: its flags are what the emitter asks for now.
  uint64_t hash = WithShapeOf(i, [&](const CseShape& s) { return HashOf(s); });
  llvm::Instruction*& slot = table_[hash];
  undo_.push_back({hash, slot});
  slot = i;
}

namespace {

// A request's shape, its operands canonical.
struct Request {
  llvm::SmallVector<llvm::Value*, 4> operands;
  llvm::SmallVector<unsigned, 4> extra;
  CseShape shape;

  Request(unsigned opcode, llvm::Type* type, llvm::ArrayRef<llvm::Value*> ops) : operands(ops.begin(), ops.end()) {
    Canonicalize(opcode, operands);
    shape.opcode = opcode;
    shape.type = type;
    shape.operands = operands;
  }
  Request& Extra(llvm::ArrayRef<unsigned> words) {
    extra.assign(words.begin(), words.end());
    shape.extra = extra;
    return *this;
  }
};

}  // namespace

llvm::Value* CseFolder::FoldBinOp(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r) const {
  if (llvm::Value* v = constants_.FoldBinOp(opc, l, r)) return v;
  // No flags: an `or` given the disjoint flag after it was built (by hand:
  // LLVM 19's IRBuilder has no such parameter) does not serve.
  return cse_->Find(Request(opc, l->getType(), {l, r}).shape, 0);
}

llvm::Value* CseFolder::FoldExactBinOp(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r,
                                       bool exact) const {
  if (llvm::Value* v = constants_.FoldExactBinOp(opc, l, r, exact)) return v;
  return cse_->Find(Request(opc, l->getType(), {l, r}).shape, exact ? LocalCse::kExact : 0);
}

llvm::Value* CseFolder::FoldNoWrapBinOp(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r, bool nuw,
                                        bool nsw) const {
  if (llvm::Value* v = constants_.FoldNoWrapBinOp(opc, l, r, nuw, nsw)) return v;
  unsigned flags = (nuw ? LocalCse::kNuw : 0) | (nsw ? LocalCse::kNsw : 0);
  return cse_->Find(Request(opc, l->getType(), {l, r}).shape, flags);
}

llvm::Value* CseFolder::FoldBinOpFMF(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r,
                                     llvm::FastMathFlags fmf) const {
  if (llvm::Value* v = constants_.FoldBinOpFMF(opc, l, r, fmf)) return v;
  return cse_->Find(Request(opc, l->getType(), {l, r}).shape, 0, &fmf);
}

llvm::Value* CseFolder::FoldUnOpFMF(llvm::Instruction::UnaryOps opc, llvm::Value* v, llvm::FastMathFlags fmf) const {
  if (llvm::Value* c = constants_.FoldUnOpFMF(opc, v, fmf)) return c;
  return cse_->Find(Request(opc, v->getType(), {v}).shape, 0, &fmf);
}

llvm::Value* CseFolder::FoldCmp(llvm::CmpInst::Predicate p, llvm::Value* l, llvm::Value* r) const {
  if (llvm::Value* v = constants_.FoldCmp(p, l, r)) return v;
  unsigned opcode = llvm::CmpInst::isIntPredicate(p) ? llvm::Instruction::ICmp : llvm::Instruction::FCmp;
  unsigned predicate = p;
  return cse_->Find(Request(opcode, llvm::CmpInst::makeCmpResultType(l->getType()), {l, r}).Extra(predicate).shape, 0);
}

llvm::Value* CseFolder::FoldGEP(llvm::Type* type, llvm::Value* ptr, llvm::ArrayRef<llvm::Value*> indices,
                                llvm::GEPNoWrapFlags nw) const {
  if (llvm::Value* v = constants_.FoldGEP(type, ptr, indices, nw)) return v;
  Request r(llvm::Instruction::GetElementPtr, llvm::GetElementPtrInst::getGEPReturnType(ptr, indices), ptr);
  r.operands.append(indices.begin(), indices.end());
  r.shape.operands = r.operands;
  r.shape.source = type;
  return cse_->Find(r.shape, nw.getRaw() << LocalCse::kGepShift);
}

llvm::Value* CseFolder::FoldSelect(llvm::Value* c, llvm::Value* t, llvm::Value* f) const {
  if (llvm::Value* v = constants_.FoldSelect(c, t, f)) return v;
  return cse_->Find(Request(llvm::Instruction::Select, t->getType(), {c, t, f}).shape, 0);
}

llvm::Value* CseFolder::FoldExtractValue(llvm::Value* agg, llvm::ArrayRef<unsigned> indices) const {
  if (llvm::Value* v = constants_.FoldExtractValue(agg, indices)) return v;
  llvm::Type* type = llvm::ExtractValueInst::getIndexedType(agg->getType(), indices);
  return cse_->Find(Request(llvm::Instruction::ExtractValue, type, agg).Extra(indices).shape, 0);
}

llvm::Value* CseFolder::FoldInsertValue(llvm::Value* agg, llvm::Value* v, llvm::ArrayRef<unsigned> indices) const {
  if (llvm::Value* c = constants_.FoldInsertValue(agg, v, indices)) return c;
  return cse_->Find(Request(llvm::Instruction::InsertValue, agg->getType(), {agg, v}).Extra(indices).shape, 0);
}

llvm::Value* CseFolder::FoldExtractElement(llvm::Value* vec, llvm::Value* index) const {
  if (llvm::Value* v = constants_.FoldExtractElement(vec, index)) return v;
  llvm::Type* type = llvm::cast<llvm::VectorType>(vec->getType())->getElementType();
  return cse_->Find(Request(llvm::Instruction::ExtractElement, type, {vec, index}).shape, 0);
}

llvm::Value* CseFolder::FoldInsertElement(llvm::Value* vec, llvm::Value* elt, llvm::Value* index) const {
  if (llvm::Value* v = constants_.FoldInsertElement(vec, elt, index)) return v;
  return cse_->Find(Request(llvm::Instruction::InsertElement, vec->getType(), {vec, elt, index}).shape, 0);
}

llvm::Value* CseFolder::FoldShuffleVector(llvm::Value* a, llvm::Value* b, llvm::ArrayRef<int> mask) const {
  if (llvm::Value* v = constants_.FoldShuffleVector(a, b, mask)) return v;
  auto* in = llvm::cast<llvm::VectorType>(a->getType());
  llvm::Type* type = llvm::VectorType::get(in->getElementType(), static_cast<unsigned>(mask.size()),
                                           llvm::isa<llvm::ScalableVectorType>(in));
  llvm::SmallVector<unsigned, 8> words;
  for (int m : mask) words.push_back(static_cast<unsigned>(m));
  return cse_->Find(Request(llvm::Instruction::ShuffleVector, type, {a, b}).Extra(words).shape, 0);
}

llvm::Value* CseFolder::FoldCast(llvm::Instruction::CastOps op, llvm::Value* v, llvm::Type* dest) const {
  if (llvm::Value* c = constants_.FoldCast(op, v, dest)) return c;
  // No flags: a zext or trunc asked for with nneg, nuw or nsw gets them
  // only after asking; one without them serves.
  return cse_->Find(Request(op, dest, v).shape, 0);
}

}  // namespace tmc::codegen
