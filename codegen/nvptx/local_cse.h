// local-cse: the emitter's IRBuilder builds each pure instruction once
// along each path of dominating blocks. Asked for an instruction equal to
// one it already appended to the end of the insertion block, or of a
// block that dominates it (same opcode, types, operands and flags), it
// returns that one instead of building another.
//
// Why: the emitter translates every index expression where it occurs, and
// unrolled tiles repeat the same address arithmetic many times (attention's
// first LLVM IR had 11,000 instructions, half of them repeats), in the
// block where it is used and again in the loops and branches below it
// (the thread's coordinates, `tid / 32`, `tid % 32`, read again in every
// k-step). Reads of the launch registers (%tid, %ctaid, %ntid, %nctaid)
// count as pure instructions here. LLVM's EarlyCSE removes the repeats,
// but each costs its creation and a trip through SROA and EarlyCSE first;
// a hash lookup at creation is cheaper.
//
// Which blocks dominate which, the emitter says as it goes (Enter): its
// control flow is structured, so the block that branches into an `if`
// dominates both arms and the join, a loop's preheader its header, the
// header its body, latch and exit. The blocks from the function's entry
// to the insertion block form a chain, a stack of scopes: entering a
// block pops what the new block's dominator does not lead to, as LLVM's
// ScopedHashTable does, so every recorded instruction is at the end of a
// block on the chain and dominates the insertion point. A block the
// emitter did not announce starts a chain of its own.
//
// It also follows the register elements the emitter marks private (memory
// nothing else touches): a load of one reads the value the block last
// stored to or loaded from it (KnownValue), so the emitter uses that value
// and the arithmetic on it is found equal to earlier arithmetic too. That
// stays within one block.
//
// What the builder's users must keep to: a value the builder returns may
// be shared, so it is never modified (flags, operands) nor erased; and
// instructions are compared without their metadata (the emitter puts none
// on pure instructions; a reused one keeps the debug location of the
// statement that built it first).
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/ConstantFolder.h>
#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace tmc::codegen {

/// What a pure instruction is, without its block and flags: what must be
/// equal for one instruction to stand for another. A view: the operands
/// and the extra words live with whoever asks.
struct CseShape {
  unsigned opcode = 0;
  llvm::Type* type = nullptr;    // the result's
  llvm::Type* source = nullptr;  // a GEP's source element type
  llvm::ArrayRef<llvm::Value*> operands;
  llvm::ArrayRef<unsigned> extra;  // a compare's predicate, aggregate indices, a shuffle mask
};

/// The pure instructions built at the ends of the blocks on the chain of
/// dominators of the insertion block, by a hash of their shape. Only
/// instructions appended at a block's end are recorded, and only requests
/// for the end of the chain's last block are answered, so a recorded
/// instruction always dominates the place it is reused.
class LocalCse {
 public:
  /// The builder whose insertion point requests refer to.
  void Bind(const llvm::IRBuilderBase* builder) { builder_ = builder; }
  /// Forgets every instruction (a new function).
  void Clear() {
    table_.clear();
    undo_.clear();
    chain_.clear();
    depth_.clear();
    private_.clear();
    known_.clear();
  }

  /// The builder goes on at the end of `block`, which `dominator` (null:
  /// none known) dominates; `dominator` is a block entered before.
  /// Instructions at the ends of `dominator` and of the blocks on its chain
  /// serve in `block`; those of other blocks no longer do. Back to a block
  /// on the chain, what was entered after it is dropped.
  void Enter(llvm::BasicBlock* block, llvm::BasicBlock* dominator);

  /// Marks `a` as memory that only the builder's own loads and stores
  /// touch (the emitter's register elements: never passed on, never
  /// addressed otherwise). In such memory the value last stored to or
  /// loaded from `a` at the end of a block is what a load of it there
  /// reads (KnownValue), which spares the load and lets the arithmetic on
  /// it be found equal to earlier arithmetic on the same value.
  void MarkPrivate(const llvm::AllocaInst* a) { private_.insert(a); }
  /// `a` is about to be replaced or erased: no longer private.
  void ForgetPrivate(const llvm::AllocaInst* a) {
    private_.erase(a);
    known_.erase(a);
  }
  /// What a load of `type` from `pointer` at the end of the insertion block
  /// reads, if `pointer` is private and that block stored or loaded it
  /// last with that type; else null.
  llvm::Value* KnownValue(const llvm::Value* pointer, llvm::Type* type) const;

  /// An instruction of `shape` with exactly `flags` (FlagsOf's encoding;
  /// `fmf`, when given, instead of the builder's fast-math flags) at the
  /// end of the insertion block or of a block on its chain, or null. Only
  /// for the end of the chain's last block.
  llvm::Value* Find(const CseShape& shape, unsigned flags, const llvm::FastMathFlags* fmf = nullptr) const;
  /// A call of `read`, a launch register's intrinsic (%tid.x, %ctaid.y,
  /// %ntid.z, %nctaid.x, ...), as Find finds instructions; null for any
  /// other function.
  llvm::Value* FindRegisterRead(llvm::Function* read) const;
  /// Records `i`, inserted at `at`, if it is pure and `at` is a block's end.
  void Record(llvm::Instruction* i, llvm::BasicBlock::iterator at);

  /// nuw, nsw, exact, disjoint, nneg and a GEP's no-wrap flags as bits.
  static unsigned FlagsOf(const llvm::Instruction* i);
  static constexpr unsigned kNuw = 1, kNsw = 2, kExact = 4, kDisjoint = 8, kNonNeg = 16, kGepShift = 8;

 private:
  // Drops the chain's blocks above position `depth` and what they recorded.
  void PopTo(size_t depth);

  const llvm::IRBuilderBase* builder_ = nullptr;
  // By hash alone: a collision finds an instruction of another shape,
  // which Find checks and does not use. Only instructions of blocks on the
  // chain are in it.
  llvm::DenseMap<uint64_t, llvm::Instruction*> table_;
  // What each recording replaced in table_ (null: nothing), to put back
  // when its block leaves the chain.
  std::vector<std::pair<uint64_t, llvm::Instruction*>> undo_;
  struct Link {
    llvm::BasicBlock* block;
    size_t undo_from;  // the first of undo_'s entries this block recorded
  };
  std::vector<Link> chain_;                                // from the entry to the insertion block
  llvm::DenseMap<const llvm::BasicBlock*, size_t> depth_;  // a chain block's position in chain_
  llvm::DenseSet<const llvm::Value*> private_;
  // A private pointer's last value, and the block that stored or loaded it.
  llvm::DenseMap<const llvm::Value*, std::pair<llvm::BasicBlock*, llvm::Value*>> known_;
};

/// LLVM's constant folder first; then an equal instruction of the block or
/// of a block that dominates it (LocalCse::Find).
class CseFolder final : public llvm::IRBuilderFolder {
 public:
  explicit CseFolder(LocalCse& cse) : cse_(&cse) {}

  llvm::Value* FoldBinOp(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r) const override;
  llvm::Value* FoldExactBinOp(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r,
                              bool exact) const override;
  llvm::Value* FoldNoWrapBinOp(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r, bool nuw,
                               bool nsw) const override;
  llvm::Value* FoldBinOpFMF(llvm::Instruction::BinaryOps opc, llvm::Value* l, llvm::Value* r,
                            llvm::FastMathFlags fmf) const override;
  llvm::Value* FoldUnOpFMF(llvm::Instruction::UnaryOps opc, llvm::Value* v, llvm::FastMathFlags fmf) const override;
  llvm::Value* FoldCmp(llvm::CmpInst::Predicate p, llvm::Value* l, llvm::Value* r) const override;
  llvm::Value* FoldGEP(llvm::Type* type, llvm::Value* ptr, llvm::ArrayRef<llvm::Value*> indices,
                       llvm::GEPNoWrapFlags nw) const override;
  llvm::Value* FoldSelect(llvm::Value* c, llvm::Value* t, llvm::Value* f) const override;
  llvm::Value* FoldExtractValue(llvm::Value* agg, llvm::ArrayRef<unsigned> indices) const override;
  llvm::Value* FoldInsertValue(llvm::Value* agg, llvm::Value* v, llvm::ArrayRef<unsigned> indices) const override;
  llvm::Value* FoldExtractElement(llvm::Value* vec, llvm::Value* index) const override;
  llvm::Value* FoldInsertElement(llvm::Value* vec, llvm::Value* elt, llvm::Value* index) const override;
  llvm::Value* FoldShuffleVector(llvm::Value* a, llvm::Value* b, llvm::ArrayRef<int> mask) const override;
  llvm::Value* FoldCast(llvm::Instruction::CastOps op, llvm::Value* v, llvm::Type* dest) const override;
  llvm::Value* FoldBinaryIntrinsic(llvm::Intrinsic::ID id, llvm::Value* l, llvm::Value* r, llvm::Type* type,
                                   llvm::Instruction* fmf_source) const override {
    return constants_.FoldBinaryIntrinsic(id, l, r, type, fmf_source);
  }
  llvm::Value* CreatePointerCast(llvm::Constant* c, llvm::Type* dest) const override {
    return constants_.CreatePointerCast(c, dest);
  }
  llvm::Value* CreatePointerBitCastOrAddrSpaceCast(llvm::Constant* c, llvm::Type* dest) const override {
    return constants_.CreatePointerBitCastOrAddrSpaceCast(c, dest);
  }

 private:
  llvm::ConstantFolder constants_;
  LocalCse* cse_;
};

/// Inserts as IRBuilder's default inserter does, then records.
class CseInserter final : public llvm::IRBuilderDefaultInserter {
 public:
  explicit CseInserter(LocalCse& cse) : cse_(&cse) {}
  void InsertHelper(llvm::Instruction* i, const llvm::Twine& name, llvm::BasicBlock::iterator at) const override {
    llvm::IRBuilderDefaultInserter::InsertHelper(i, name, at);
    cse_->Record(i, at);
  }

 private:
  LocalCse* cse_;
};

using CseBuilder = llvm::IRBuilder<CseFolder, CseInserter>;

}  // namespace tmc::codegen
