// pack-conversions: see pack_conversions.h.
#include "codegen/nvptx/pack_conversions.h"

#include <map>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>

#include "codegen/nvptx/register_function_pass.h"

namespace tmc::codegen {
namespace {

// The vector types this pass builds: an even number of halves or bfloats.
bool IsPackable(const llvm::Type* t) {
  auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  if (!v || v->getNumElements() % 2 != 0) return false;
  return v->getElementType()->isHalfTy() || v->getElementType()->isBFloatTy();
}

// The f32 value that `v` rounds to its 16-bit float type, or null.
llvm::Value* RoundedFloat(llvm::Value* v) {
  auto* trunc = llvm::dyn_cast_or_null<llvm::FPTruncInst>(v);
  if (!trunc || !trunc->getOperand(0)->getType()->isFloatTy()) return nullptr;
  return trunc->getOperand(0);
}

// The 32-bit value whose lower (`upper`: upper) 16 bits `v` is, or null:
// `bitcast (trunc x)`, `bitcast (trunc (lshr x, 16))`, or lane 0 (1) of
// `bitcast x` to a vector of two.
llvm::Value* HalfOf(llvm::Value* v, bool upper) {
  using namespace llvm::PatternMatch;
  llvm::Value* x = nullptr;
  if (!v) return nullptr;  // a poison lane
  bool matched = upper ? match(v, m_BitCast(m_Trunc(m_LShr(m_Value(x), m_SpecificInt(16))))) ||
                             match(v, m_ExtractElt(m_BitCast(m_Value(x)), m_SpecificInt(1)))
                       : match(v, m_BitCast(m_Trunc(m_Value(x)))) ||
                             match(v, m_ExtractElt(m_BitCast(m_Value(x)), m_SpecificInt(0)));
  return matched && x->getType()->isIntegerTy(32) ? x : nullptr;
}

// The lanes of the vector built by the chain of insertelements that ends
// at `last`: the value each lane holds, null for a poison or undef lane.
// False when the chain starts from a value not known at compile time or
// inserts at a lane that is not a constant.
bool ChainLanes(llvm::InsertElementInst* last, std::vector<llvm::Value*>* lanes) {
  unsigned n = llvm::cast<llvm::FixedVectorType>(last->getType())->getNumElements();
  lanes->assign(n, nullptr);
  std::vector<bool> set(n, false);
  llvm::Value* cur = last;
  // From the last insertion back: a later one overrides an earlier one.
  while (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(cur)) {
    auto* index = llvm::dyn_cast<llvm::ConstantInt>(insert->getOperand(2));
    if (!index || index->getZExtValue() >= n) return false;
    unsigned lane = static_cast<unsigned>(index->getZExtValue());
    if (!set[lane]) (*lanes)[lane] = insert->getOperand(1), set[lane] = true;
    cur = insert->getOperand(0);
  }
  auto* base = llvm::dyn_cast<llvm::Constant>(cur);
  if (!base) return false;
  for (unsigned i = 0; i < n; ++i) {
    if (set[i]) continue;
    llvm::Constant* element = base->getAggregateElement(i);
    if (!element) return false;
    if (!llvm::isa<llvm::UndefValue>(element)) (*lanes)[i] = element;
  }
  return true;
}

// Whether lanes `lo` and `hi` of a pair can be one conversion of two
// floats: both rounded floats; the two halves of one 32-bit value, which
// is the pair as it is; or, as the incoming values of `phi`s below
// (`nested`), both constants; or two phis of one block, used only here,
// whose incoming pairs are such pairs (at least one of conversions): the
// f16 tile of an epilogue after a loop that may run zero times, its lanes
// zero on the way around the loop.
bool CanPack(llvm::Value* lo, llvm::Value* hi, bool nested) {
  if (RoundedFloat(lo) && RoundedFloat(hi)) return true;
  if (llvm::Value* word = HalfOf(lo, false); word && word == HalfOf(hi, true)) return true;
  if (nested) return llvm::isa<llvm::Constant>(lo) && llvm::isa<llvm::Constant>(hi);
  auto* plo = llvm::dyn_cast_or_null<llvm::PHINode>(lo);
  auto* phi = llvm::dyn_cast_or_null<llvm::PHINode>(hi);
  if (!plo || !phi || plo->getParent() != phi->getParent() || !plo->hasOneUse() || !phi->hasOneUse()) return false;
  bool converts = false;
  for (unsigned k = 0; k < plo->getNumIncomingValues(); ++k) {
    int other = phi->getBasicBlockIndex(plo->getIncomingBlock(k));
    if (other < 0) return false;
    llvm::Value* in_lo = plo->getIncomingValue(k);
    llvm::Value* in_hi = phi->getIncomingValue(other);
    if (!CanPack(in_lo, in_hi, true)) return false;
    converts |= RoundedFloat(in_lo) != nullptr || HalfOf(in_lo, false) != nullptr;
  }
  return converts;
}

// The pair (lo, hi) as one <2 x T> value, built before `at` (CanPack holds).
llvm::Value* Pack(llvm::Value* lo, llvm::Value* hi, llvm::FixedVectorType* pair_type, llvm::Instruction* at) {
  if (RoundedFloat(lo) && RoundedFloat(hi)) {
    llvm::Intrinsic::ID id = pair_type->getElementType()->isHalfTy() ? llvm::Intrinsic::nvvm_ff2f16x2_rn
                                                                     : llvm::Intrinsic::nvvm_ff2bf16x2_rn;
    llvm::Function* convert = llvm::Intrinsic::getDeclaration(at->getModule(), id);
    // The intrinsic, as cvt.rn.f16x2.f32 d, a, b, puts a in the upper half
    // of d (lane 1) and b in the lower (lane 0).
    return llvm::IRBuilder<>(at).CreateCall(convert, {RoundedFloat(hi), RoundedFloat(lo)});
  }
  if (llvm::Value* word = HalfOf(lo, false); word && word == HalfOf(hi, true))
    return llvm::IRBuilder<>(at).CreateBitCast(word, pair_type);
  if (auto* clo = llvm::dyn_cast<llvm::Constant>(lo))
    return llvm::ConstantVector::get({clo, llvm::cast<llvm::Constant>(hi)});
  // Two phis: one phi of pairs, each incoming pair built at the end of its
  // block (once per block: a block may come in more than once).
  auto* plo = llvm::cast<llvm::PHINode>(lo);
  auto* phi = llvm::cast<llvm::PHINode>(hi);
  llvm::PHINode* pairs = llvm::PHINode::Create(pair_type, plo->getNumIncomingValues(), plo->getName() + ".pair", plo);
  std::map<llvm::BasicBlock*, llvm::Value*> built;
  for (unsigned k = 0; k < plo->getNumIncomingValues(); ++k) {
    llvm::BasicBlock* from = plo->getIncomingBlock(k);
    llvm::Value*& pair = built[from];
    if (!pair) pair = Pack(plo->getIncomingValue(k), phi->getIncomingValueForBlock(from), pair_type, from->getTerminator());
    pairs->addIncoming(pair, from);
  }
  return pairs;
}

// The vector of type `type` whose lanes are `lanes` (null: poison), built
// before `at` with one conversion of two floats for each pair of lanes
// that can be one (CanPack); null when no pair can.
llvm::Value* PackedVector(llvm::FixedVectorType* type, const std::vector<llvm::Value*>& lanes, llvm::Instruction* at) {
  unsigned pairs = type->getNumElements() / 2;
  std::vector<bool> packs(pairs);
  bool any = false;
  for (unsigned p = 0; p < pairs; ++p) any |= packs[p] = CanPack(lanes[2 * p], lanes[2 * p + 1], false);
  if (!any) return nullptr;

  llvm::IRBuilder<> b(at);
  auto* pair_type = llvm::FixedVectorType::get(type->getElementType(), 2);
  auto pair = [&](unsigned p) -> llvm::Value* {
    llvm::Value* lo = lanes[2 * p];
    llvm::Value* hi = lanes[2 * p + 1];
    if (packs[p]) return Pack(lo, hi, pair_type, at);
    // A poison lane beside a value becomes 0 (a refinement): as a poison
    // half of the 32-bit word it would make the whole word, the value's
    // lane too, poison.
    llvm::Constant* zero = llvm::ConstantFP::get(type->getElementType(), 0.0);
    llvm::Value* v = llvm::PoisonValue::get(pair_type);
    v = b.CreateInsertElement(v, lo ? lo : zero, uint64_t{0});
    return b.CreateInsertElement(v, hi ? hi : zero, uint64_t{1});
  };
  if (pairs == 1) return pair(0);
  // Wider vectors as 32-bit words, one per register, each a pair of lanes.
  auto* words_type = llvm::FixedVectorType::get(b.getInt32Ty(), pairs);
  llvm::Value* words = llvm::PoisonValue::get(words_type);
  for (unsigned p = 0; p < pairs; ++p)
    if (lanes[2 * p] || lanes[2 * p + 1]) words = b.CreateInsertElement(words, b.CreateBitCast(pair(p), b.getInt32Ty()), p);
  return b.CreateBitCast(words, type);
}

}  // namespace

llvm::PreservedAnalyses PackConversionsPass::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  // What to rewrite first (rewriting removes instructions): the last
  // insertelement of each chain, and vector fptruncs.
  // (Weak handles: deleting a rewritten vector's dead operands may delete
  // another one listed.)
  std::vector<llvm::WeakTrackingVH> built;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& i : block) {
      if (!IsPackable(i.getType())) continue;
      if (auto* trunc = llvm::dyn_cast<llvm::FPTruncInst>(&i)) {
        if (trunc->getOperand(0)->getType()->getScalarType()->isFloatTy()) built.push_back(&i);
        continue;
      }
      if (!llvm::isa<llvm::InsertElementInst>(i)) continue;
      bool extended = false;
      for (llvm::User* user : i.users())
        if (auto* next = llvm::dyn_cast<llvm::InsertElementInst>(user); next && next->getOperand(0) == &i)
          extended = true;
      if (!extended) built.push_back(&i);
    }

  bool changed = false;
  std::vector<llvm::Value*> lanes;
  for (llvm::WeakTrackingVH& handle : built) {
    auto* i = llvm::cast_or_null<llvm::Instruction>(static_cast<llvm::Value*>(handle));
    if (!i) continue;
    auto* type = llvm::cast<llvm::FixedVectorType>(i->getType());
    llvm::Value* packed = nullptr;
    if (auto* trunc = llvm::dyn_cast<llvm::FPTruncInst>(i)) {
      // Each lane of a vector conversion as a scalar one, for the pairs
      // (which all pack: those scalar conversions are then unused).
      llvm::IRBuilder<> b(i);
      lanes.clear();
      for (unsigned k = 0; k < type->getNumElements(); ++k)
        lanes.push_back(b.CreateFPTrunc(b.CreateExtractElement(trunc->getOperand(0), uint64_t{k}), type->getElementType()));
      packed = PackedVector(type, lanes, i);
      for (llvm::Value* lane : lanes) llvm::RecursivelyDeleteTriviallyDeadInstructions(lane);
    } else if (ChainLanes(llvm::cast<llvm::InsertElementInst>(i), &lanes)) {
      packed = PackedVector(type, lanes, i);
    }
    if (!packed) continue;
    i->replaceAllUsesWith(packed);
    llvm::RecursivelyDeleteTriviallyDeadInstructions(i);
    changed = true;
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

void RegisterPackConversions(llvm::PassBuilder& pb, llvm::PassInstrumentationCallbacks& pic) {
  RegisterFunctionPass<PackConversionsPass>(pb, pic, "tmc-pack-conversions");
}

}  // namespace tmc::codegen
