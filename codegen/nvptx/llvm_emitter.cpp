// The translation is structural. Immutable IR variables become SSA values;
// mutable ones become allocas in the entry block, and so do register
// arrays: one alloca per element while their indices are constants
// (unrolled distributed tensors), which mem2reg promotes to registers, an
// array (for SROA) once an index is not. Shared tensors are offsets into
// one shared-memory array: static when at most 48 KB, dynamic (extern)
// above.
#include "codegen/nvptx/llvm_emitter.h"

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "codegen/cpu/cpu_abi.h"
#include "codegen/nvptx/known_offset_bits.h"
#include "codegen/nvptx/local_cse.h"
#include "codegen/nvptx/nvptx_backend.h"
#include "codegen/nvptx/predicated_stores.h"
#include "codegen/nvptx/value_range.h"
#include "ir/predicable.h"
#include "ir/register_words.h"
#include "ir/divisibility.h"
#include "ir/mutator.h"
#include "ir/wgmma_sync_registers.h"
#include "ir/transforms/flatten_buffers.h"
#include "ir/transforms/pipeline.h"
#include "support/check.h"

namespace tmc::codegen {
namespace {

using namespace ir;

constexpr unsigned kGlobalAS = 1;
constexpr unsigned kSharedAS = 3;
constexpr int64_t kStaticSharedLimit = 48 * 1024;

class Emitter {
 public:
  Emitter(llvm::Module& mod, const LlvmEmitOptions& o)
      : mod_(mod), ctx_(mod.getContext()), b_(ctx_, CseFolder(cse_), CseInserter(cse_)), o_(o),
        global_as_(o.host ? 0 : kGlobalAS), shared_as_(o.host ? 0 : kSharedAS) {
    cse_.Bind(&b_);
    if (o.debug != LlvmEmitOptions::Debug::None && o.sources) StartDebugInfo();
  }

  // Debug information: one compile unit, one subprogram per function, and
  // the location of the statement being emitted on every instruction. Line
  // tables use DebugDirectivesOnly, as clang does for CUDA's -lineinfo: the
  // PTX gets .file/.loc and no DWARF sections.
  void StartDebugInfo() {
    dib_ = std::make_unique<llvm::DIBuilder>(mod_);
    std::string main = o_.sources->FileCount() > 0 ? std::string(o_.sources->Path(0)) : mod_.getName().str();
    auto kind = o_.debug == LlvmEmitOptions::Debug::Full ? llvm::DICompileUnit::FullDebug
                                                         : llvm::DICompileUnit::DebugDirectivesOnly;
    dib_->createCompileUnit(llvm::dwarf::DW_LANG_C_plus_plus, DiFile(main), "tmc", true, "", 0, "", kind);
    mod_.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
    mod_.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 2);
  }
  void FinishDebugInfo() {
    if (dib_) dib_->finalize();
  }
  // An absolute directory, so that a profiler finds the file from anywhere.
  llvm::DIFile* DiFile(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(path, ec).lexically_normal();
    if (ec) p = path;
    return dib_->createFile(p.filename().string(), p.parent_path().string());
  }
  void SetDebugLoc(SourceRange loc) {
    if (!dib_ || !sp_ || !loc.IsValid()) return;
    PresumedLoc p = o_.sources->Presumed(loc.begin);
    b_.SetCurrentDebugLocation(llvm::DILocation::get(ctx_, p.line, p.column, sp_));
  }

  llvm::Type* Ty(ScalarKind k) {
    switch (k) {
      case ScalarKind::Bool: return b_.getInt1Ty();
      case ScalarKind::I8: case ScalarKind::U8: return b_.getInt8Ty();
      case ScalarKind::I16: case ScalarKind::U16: return b_.getInt16Ty();
      case ScalarKind::I32: case ScalarKind::U32: return b_.getInt32Ty();
      case ScalarKind::I64: case ScalarKind::U64: return b_.getInt64Ty();
      case ScalarKind::F16: return b_.getHalfTy();
      case ScalarKind::BF16: return b_.getBFloatTy();
      case ScalarKind::F32: return b_.getFloatTy();
      case ScalarKind::F64: return b_.getDoubleTy();
    }
    return b_.getInt32Ty();
  }
  // A tensor parameter's address space: global, shared (a `shared`
  // parameter of a function) or the caller's register array (a fragment
  // parameter, an alloca in address space 0); all 0 on the host.
  unsigned ParamAddressSpace(const Buffer& b) const {
    if (o_.host || b.scope == MemScope::Register) return 0;
    return b.scope == MemScope::Shared ? kSharedAS : global_as_;
  }

  // In memory, bool is a byte.
  llvm::Type* MemTy(ScalarKind k) { return k == ScalarKind::Bool ? b_.getInt8Ty() : Ty(k); }

  void Declare(const Function& fn) {
    std::vector<llvm::Type*> params;
    for (const Param& p : fn.params)
      // Fragment parameters point at the caller's register array (an
      // alloca, address space 0); other tensors are global.
      // A tensor map (`by tma`) is a 128-byte kernel parameter passed by
      // value (byval, __grid_constant__).
      params.push_back(p.buffer ? static_cast<llvm::Type*>(b_.getPtrTy(p.buffer->tma && !o_.host ? 0 : ParamAddressSpace(*p.buffer)))
                                : Ty(p.var->type));
    // On the host every function also receives its thread's context.
    if (o_.host) params.push_back(b_.getPtrTy());
    llvm::Type* ret = fn.result ? Ty(*fn.result) : b_.getVoidTy();
    auto* type = llvm::FunctionType::get(ret, params, false);
    bool kernel = fn.kind == Function::Kind::Kernel;
    auto* f = llvm::Function::Create(type, kernel && !o_.host ? llvm::GlobalValue::ExternalLinkage
                                                              : llvm::GlobalValue::InternalLinkage,
                                     o_.host && kernel ? fn.name + ".body" : fn.name, mod_);
    // On the host, a frame larger than a page (a big register array) is
    // probed page by page, so that it faults in the fiber stack's guard
    // page instead of jumping over it into the neighbouring stack.
    if (o_.host) f->addFnAttr("probe-stack", "inline-asm");
    if (kernel && o_.host) HostEntry(fn, f);
    if (kernel && !o_.host) {
      f->setCallingConv(llvm::CallingConv::PTX_Kernel);
      // The block size is known: tell the register allocator.
      llvm::NamedMDNode* ann = mod_.getOrInsertNamedMetadata("nvvm.annotations");
      auto i32 = [&](int64_t v) { return llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(v))); };
      const char* keys[] = {"maxntidx", "maxntidy", "maxntidz"};
      for (size_t d = 0; d < fn.block.size(); ++d)
        ann->addOperand(llvm::MDNode::get(ctx_, {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx_, keys[d]), i32(fn.block[d])}));
      // setmaxnreg moves registers between the warpgroups of a block that
      // starts with the block's whole budget: ptxas needs to know it is one
      // block an SM (.minnctapersm 1), else it ignores setmaxnreg
      // ("unable to determine register count at entry").
      if (UsesIntrinsic(fn, Intrinsic::SetMaxNReg))
        ann->addOperand(llvm::MDNode::get(ctx_, {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx_, "minctasm"), i32(1)}));
      // LLVM 19's NVPTX has no annotation for a cluster's shape: EmitPtx
      // writes the .reqnctapercluster directive from this one.
      if (fn.ClusterBlocks() > 1)
        mod_.getOrInsertNamedMetadata(kClusterMetadata)
            ->addOperand(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, fn.name), i32(fn.cluster[0]), i32(fn.cluster[1]),
                                                  i32(fn.cluster[2])}));
    }
    std::vector<llvm::Metadata*> grid_constants;  // 1-based indices of the tensor-map parameters
    for (size_t i = 0; i < fn.params.size(); ++i) {
      const Param& p = fn.params[i];
      f->getArg(static_cast<unsigned>(i))->setName(p.buffer ? p.buffer->name : p.var->name);
      if (p.buffer && p.buffer->read_only) f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::ReadOnly);
      // Tensor arguments are 16-byte aligned and do not overlap each other
      // (docs/language.md, "Kernel arguments"), as __restrict__ says in the
      // CUDA path: LLVM may then reorder and merge accesses into 16-byte ones.
      if (p.buffer && p.buffer->tma && kernel && !o_.host) {
        llvm::Type* bytes = llvm::ArrayType::get(b_.getInt8Ty(), 128);
        f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::getWithByValType(ctx_, bytes));
        f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
        grid_constants.push_back(llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(i + 1))));
      } else if (p.buffer && p.buffer->scope == MemScope::Global) {
        f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::getWithAlignment(ctx_, llvm::Align(16)));
        if (kernel) f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
      }
    }
    // One annotation with all of them: NVPTX keeps one list per key and
    // function (a tensor map stays in parameter space, not copied to the stack).
    if (!grid_constants.empty())
      mod_.getOrInsertNamedMetadata("nvvm.annotations")
          ->addOperand(llvm::MDNode::get(ctx_, {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx_, "grid_constant"),
                                                llvm::MDNode::get(ctx_, grid_constants)}));
    functions_[&fn] = f;
  }

  // The host entry point `void name(tmc_cpu_thread*, const uint64_t* args)`:
  // unpacks the 8-byte argument slots and calls the kernel body.
  void HostEntry(const Function& fn, llvm::Function* body) {
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy()}, false);
    auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, fn.name, mod_);
    Start(llvm::BasicBlock::Create(ctx_, "entry", f), nullptr);
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < fn.params.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), f->getArg(1), i);
      const Param& p = fn.params[i];
      args.push_back(b_.CreateLoad(p.buffer ? static_cast<llvm::Type*>(b_.getPtrTy()) : Ty(p.var->type), slot));
    }
    args.push_back(f->getArg(0));
    b_.CreateCall(body, args);
    b_.CreateRetVoid();
  }

  llvm::Value* ThreadField(int offset, int index) {
    llvm::Value* p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), thread_, static_cast<uint64_t>(offset + 4 * index));
    return b_.CreateLoad(b_.getInt32Ty(), p);
  }

  llvm::FunctionCallee Runtime(const char* name, llvm::Type* ret, std::vector<llvm::Type*> params) {
    return mod_.getOrInsertFunction(name, llvm::FunctionType::get(ret, params, false));
  }

  // tmc_cpu_access (codegen/cpu/cpu_abi.h): the checked access of the
  // checking modes.
  llvm::FunctionCallee AccessCheck() {
    return Runtime("tmc_cpu_access", b_.getPtrTy(),
                   {b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt32Ty(), b_.getInt32Ty(),
                    b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty()});
  }

  // A source location for a runtime report: the expression's own range when
  // it has one, else the statement being emitted.
  int32_t Site(SourceRange loc = {}) {
    if (!o_.sites) return 0;
    o_.sites->push_back(loc.IsValid() ? loc : cur_loc_);
    return static_cast<int32_t>(o_.sites->size() - 1);
  }

  void Define(const Function& fn) {
    fn_ = &fn;
    f_ = functions_.at(&fn);
    vars_.clear();
    buffers_.clear();
    scalarized_.clear();
    register_words_ = 0;
    cse_.Clear();
    predicate_guards_ = !o_.host && CountPredicableGuards(fn.body) >= kPredicatedGuardsFrom;
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", f_);
    Start(entry_, nullptr);
    if (dib_ && fn.loc.IsValid()) {
      PresumedLoc p = o_.sources->Presumed(fn.loc.begin);
      llvm::DIFile* file = DiFile(std::string(p.path));
      sp_ = dib_->createFunction(file, fn.name, f_->getName(), file, p.line,
                                 dib_->createSubroutineType(dib_->getOrCreateTypeArray({})), p.line,
                                 llvm::DINode::FlagPrototyped, llvm::DISubprogram::SPFlagDefinition);
      f_->setSubprogram(sp_);
      SetDebugLoc(fn.loc);
    } else {
      sp_ = nullptr;
      b_.SetCurrentDebugLocation(llvm::DebugLoc());
    }
    for (size_t i = 0; i < fn.params.size(); ++i) {
      const Param& p = fn.params[i];
      if (p.buffer) buffers_[p.buffer.get()] = f_->getArg(static_cast<unsigned>(i));
      else vars_[p.var.get()] = f_->getArg(static_cast<unsigned>(i));
    }
    thread_ = o_.host ? f_->getArg(static_cast<unsigned>(fn.params.size())) : nullptr;
    extents_.clear();
    if (o_.host && o_.check_accesses)
      for (const Param& p : fn.params)
        if (p.buffer) extents_[p.buffer.get()] = Extent(*p.buffer);
    if (fn.shared_bytes > 0) {
      shared_ = o_.host ? static_cast<llvm::Value*>(b_.CreateLoad(
                              b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), thread_, TMC_CPU_OFF_SHARED)))
                        : SharedArray(fn);
    }
    wgmma_sync_registers_ = ir::WgmmaSyncRegisters(fn);
    Stmt(fn.body);
    if (!b_.GetInsertBlock()->getTerminator()) {
      if (fn.result) b_.CreateRet(llvm::UndefValue::get(Ty(*fn.result)));
      else b_.CreateRetVoid();
    }
    // Register arrays all of whose accesses went to their elements' allocas.
    for (llvm::AllocaInst* array : dead_arrays_)
      if (array->use_empty()) array->eraseFromParent();
    dead_arrays_.clear();
    for (auto& [buf, s] : scalarized_)
      if (s.array->use_empty()) s.array->eraseFromParent();
    scalarized_.clear();
  }

  void Finish() { FinishDebugInfo(); }

 private:
  // Number of elements of a buffer (for access checks).
  llvm::Value* Extent(const Buffer& b) {
    llvm::Value* n = b_.getInt64(1);
    for (const Expr& d : b.shape) n = b_.CreateMul(n, b_.CreateSExt(Value(d), b_.getInt64Ty()));
    return n;
  }

  llvm::Value* SharedArray(const Function& fn) {
    bool dynamic = fn.shared_bytes > kStaticSharedLimit;
    std::string name = "__tmc_shared_" + fn.name;
    auto* type = llvm::ArrayType::get(b_.getInt8Ty(), dynamic ? 0 : static_cast<uint64_t>(fn.shared_bytes));
    auto* g = new llvm::GlobalVariable(mod_, type, false,
                                       dynamic ? llvm::GlobalValue::ExternalLinkage : llvm::GlobalValue::InternalLinkage,
                                       dynamic ? nullptr : llvm::UndefValue::get(type), name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, kSharedAS);
    g->setAlignment(llvm::Align(static_cast<uint64_t>(fn.shared_align)));
    return g;
  }

  // Goes on at the end of the new block `block`, which `dominator` (the
  // block that branches to it, or one above it) dominates: what the
  // builder built there and above serves in `block` (local_cse.h).
  void Start(llvm::BasicBlock* block, llvm::BasicBlock* dominator) {
    b_.SetInsertPoint(block);
    cse_.Enter(block, dominator);
  }
  // Ends the insertion block with a branch to `to`; returns that block.
  llvm::BasicBlock* BranchTo(llvm::BasicBlock* to) {
    llvm::BasicBlock* from = b_.GetInsertBlock();
    b_.CreateBr(to);
    return from;
  }
  // Ends the insertion block with a branch on `c`; returns that block,
  // which dominates both targets when they are new.
  llvm::BasicBlock* CondBranchTo(llvm::Value* c, llvm::BasicBlock* yes, llvm::BasicBlock* no,
                                 llvm::MDNode* weights = nullptr) {
    llvm::BasicBlock* from = b_.GetInsertBlock();
    b_.CreateCondBr(c, yes, no, weights);
    return from;
  }

  // An alloca in the entry block, where SROA and mem2reg look for them.
  llvm::AllocaInst* EntryAlloca(llvm::Type* t, const std::string& name) {
    llvm::IRBuilder<> eb(entry_, entry_->begin());
    return eb.CreateAlloca(t, nullptr, name);
  }

  // Starts a new block if the current one already ended (after a return,
  // break or continue), so that unreachable statements still have a home.
  void EnsureOpenBlock() {
    if (b_.GetInsertBlock()->getTerminator())
      Start(llvm::BasicBlock::Create(ctx_, "dead", f_), nullptr);  // unreachable
  }

  // Where the code of statement `s` starts: at its source location, in an
  // open block.
  void BeginStmt(const ir::Stmt& s) {
    if (s->loc.IsValid()) {
      cur_loc_ = s->loc;
      SetDebugLoc(s->loc);
    }
    EnsureOpenBlock();
  }

  // ---------------------------------------------------------------- stmts
  void Stmt(const ir::Stmt& s) {
    if (!s) return;
    BeginStmt(s);
    switch (s->kind) {
      case StmtKind::Seq: {
        const std::vector<ir::Stmt>& stmts = s->as<Seq>()->stmts;
        for (size_t i = 0; i < stmts.size();) {
          std::vector<const Call*> chain = o_.host ? std::vector<const Call*>{} : WgmmaChain(stmts, i);
          if (chain.size() < 2) {
            Stmt(stmts[i++]);
            continue;
          }
          BeginStmt(stmts[i]);  // as Stmt: dead code after a jump gets a block of its own
          WgmmaDevice(chain);
          i += chain.size();
        }
        return;
      }
      case StmtKind::LetStmt: {
        auto* l = s->as<LetStmt>();
        if (!l->var->is_mutable) {
          vars_[l->var.get()] = Value(l->value);
          return;
        }
        llvm::AllocaInst* slot = EntryAlloca(Ty(l->var->type), l->var->name);
        slots_[l->var.get()] = slot;
        if (l->value) b_.CreateStore(Value(l->value), slot);
        return;
      }
      case StmtKind::Assign: {
        auto* a = s->as<Assign>();
        b_.CreateStore(Value(a->value), slots_.at(a->var.get()));
        return;
      }
      case StmtKind::Store: {
        auto* st = s->as<Store>();
        auto [v, addr] = StoreOperands(st);
        llvm::StoreInst* store = b_.CreateStore(v, addr);
        // Stores of register values stay scalar in kernels with large
        // register tensors (ir/register_words.h).
        auto* from = st->value->as<Load>();
        bool from_registers = from && from->buffer->scope == MemScope::Register;
        bool keep_scalar = from_registers && register_words_ >= kScalarRegisterStoresFrom;
        if (!o_.host && !keep_scalar) store->setAlignment(std::max(access_align_, store->getAlign()));
        return;
      }
      case StmtKind::Alloc: {
        auto* a = s->as<Alloc>();
        const Buffer& buf = *a->buffer;
        int64_t n = AllocatedElements(buf);  // strided layouts leave gaps
        extents_[&buf] = b_.getInt64(static_cast<uint64_t>(n));
        if (buf.scope == MemScope::Shared) {
          buffers_[&buf] = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), shared_, static_cast<uint64_t>(buf.shared_offset), buf.name);
        } else {
          llvm::AllocaInst* array = EntryAlloca(llvm::ArrayType::get(MemTy(buf.elem), static_cast<uint64_t>(n)), buf.name);
          buffers_[&buf] = array;
          register_words_ += RegisterWords(buf);
          // Declared again (a copy of its scope): the earlier array keeps
          // the accesses made so far.
          if (auto it = scalarized_.find(&buf); it != scalarized_.end()) dead_arrays_.push_back(it->second.array);
          if (!o_.host) scalarized_[&buf] = ScalarizedArray{array, std::vector<llvm::AllocaInst*>(static_cast<size_t>(n))};
          else scalarized_.erase(&buf);
        }
        return;
      }
      case StmtKind::IfStmt: {
        auto* i = s->as<IfStmt>();
        llvm::Value* c = nullptr;
        if (predicate_guards_ && !i->else_body && PredicableStores(i->then_body)) {
          // The conjuncts on runtime bounds become the predicate; the others
          // (`i == r` between fragment rows) stay a branch, which LLVM
          // folds away when they are constants.
          std::vector<Expr> conjuncts;
          Conjuncts(i->cond, &conjuncts);
          llvm::Value *bounds = nullptr, *fixed = nullptr;
          for (const Expr& e : conjuncts) {
            llvm::Value* v = Value(e);
            llvm::Value*& to = DependsOnArgument(v) ? bounds : fixed;
            to = to ? b_.CreateAnd(to, v) : v;
          }
          if (bounds) {
            llvm::BasicBlock *merge = nullptr, *split = nullptr;
            if (fixed) {
              auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", f_);
              merge = llvm::BasicBlock::Create(ctx_, "endif", f_);
              split = CondBranchTo(fixed, then_bb, merge);
              Start(then_bb, split);
            }
            PredicatedStores(bounds, i->then_body);
            if (merge) {
              b_.CreateBr(merge);
              Start(merge, split);
            }
            return;
          }
          c = fixed;  // no conjunct on a runtime bound: an ordinary branch
        }
        if (!c) c = Value(i->cond);
        auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", f_);
        auto* else_bb = i->else_body ? llvm::BasicBlock::Create(ctx_, "else", f_) : nullptr;
        auto* merge = llvm::BasicBlock::Create(ctx_, "endif", f_);
        llvm::BasicBlock* split = CondBranchTo(c, then_bb, else_bb ? else_bb : merge);
        Start(then_bb, split);
        // `x % 4 == 0` holds here: inside, x reads as `x & ~3` (the same
        // value), whose known low zero bits let Address() prove accesses
        // aligned (ir/divisibility.h).
        std::vector<std::pair<const Var*, llvm::Value*>> rebound;
        if (!o_.host)
          for (auto& [x, c] : DivisibilityFacts(i->cond)) {
            auto* ref = x->as<VarRef>();
            auto it = ref ? vars_.find(ref->var.get()) : vars_.end();
            if (it == vars_.end()) continue;
            rebound.push_back(*it);
            it->second = b_.CreateAnd(it->second, llvm::ConstantInt::get(it->second->getType(), ~static_cast<uint64_t>(c - 1)));
          }
        Stmt(i->then_body);
        for (auto r = rebound.rbegin(); r != rebound.rend(); ++r) vars_[r->first] = r->second;  // last first
        if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(merge);
        if (else_bb) {
          Start(else_bb, split);
          Stmt(i->else_body);
          if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(merge);
        }
        Start(merge, split);
        return;
      }
      case StmtKind::For: {
        auto* f = s->as<For>();
        llvm::Type* t = Ty(f->var->type);
        llvm::AllocaInst* counter = EntryAlloca(t, f->var->name);
        llvm::Value* end = Value(f->end);
        llvm::Value* step = Value(f->step);
        b_.CreateStore(Value(f->begin), counter);
        auto* head = llvm::BasicBlock::Create(ctx_, "for.head", f_);
        auto* body = llvm::BasicBlock::Create(ctx_, "for.body", f_);
        auto* latch = llvm::BasicBlock::Create(ctx_, "for.latch", f_);
        auto* exit = llvm::BasicBlock::Create(ctx_, "for.end", f_);
        // The header dominates the body, the latch and the exit (break
        // and continue come from the body).
        Start(head, BranchTo(head));
        Poll(false);
        llvm::Value* i = b_.CreateLoad(t, counter);
        bool is_unsigned = IsUnsigned(f->var->type);
        llvm::Value* up = b_.CreateICmp(is_unsigned ? llvm::CmpInst::ICMP_ULT : llvm::CmpInst::ICMP_SLT, i, end);
        llvm::Value* cond = up;
        auto cs = AsConstInt(f->step);
        if (!cs || *cs < 0) {
          llvm::Value* down = b_.CreateICmpSGT(i, end);
          cond = cs ? down : b_.CreateSelect(b_.CreateICmpSGT(step, llvm::ConstantInt::get(t, 0)), up, down);
        }
        b_.CreateCondBr(cond, body, exit);
        Start(body, head);
        vars_[f->var.get()] = i;
        loops_.push_back({latch, exit});
        Stmt(f->body);
        loops_.pop_back();
        if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(latch);
        Start(latch, head);
        b_.CreateStore(b_.CreateAdd(b_.CreateLoad(t, counter), step), counter);
        b_.CreateBr(head);
        Start(exit, head);
        return;
      }
      case StmtKind::While: {
        auto* w = s->as<While>();
        auto* head = llvm::BasicBlock::Create(ctx_, "while.head", f_);
        auto* body = llvm::BasicBlock::Create(ctx_, "while.body", f_);
        auto* exit = llvm::BasicBlock::Create(ctx_, "while.end", f_);
        Start(head, BranchTo(head));
        Poll(true);
        b_.CreateCondBr(Value(w->cond), body, exit);
        Start(body, head);
        loops_.push_back({head, exit});
        Stmt(w->body);
        loops_.pop_back();
        if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(head);
        Start(exit, head);
        return;
      }
      case StmtKind::Jump: {
        TMC_CHECK(!loops_.empty(), "break outside a loop");
        b_.CreateBr(s->as<Jump>()->is_break ? loops_.back().exit : loops_.back().next);
        return;
      }
      case StmtKind::Return: {
        auto* r = s->as<Return>();
        if (r->value) b_.CreateRet(Value(r->value));
        else b_.CreateRetVoid();
        return;
      }
      case StmtKind::Barrier:
        if (o_.host) {
          b_.CreateCall(Runtime("tmc_cpu_sync", b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty()}),
                        {thread_, b_.getInt32(static_cast<uint32_t>(Site()))});
        } else {
          b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::nvvm_barrier0));
        }
        return;
      case StmtKind::Evaluate: Value(s->as<Evaluate>()->value); return;
      case StmtKind::ForMapping: TMC_CHECK(false, "task-mapping loop reached code generation");
    }
  }

  // A store's value (a bool as a byte, as memory holds it) and address.
  std::pair<llvm::Value*, llvm::Value*> StoreOperands(const Store* st) {
    llvm::Value* v = Value(st->value);
    if (st->buffer->elem == ScalarKind::Bool) v = b_.CreateZExt(v, b_.getInt8Ty());
    return {v, Address(*st->buffer, st->indices, /*is_write=*/true, &st->source, st->loc)};
  }

  // The operands of the && chain e (e itself if it is none).
  static void Conjuncts(const Expr& e, std::vector<Expr>* out) {
    if (auto* b = e->as<Binary>(); b && b->op == BinaryOp::And) {
      Conjuncts(b->lhs, out);
      Conjuncts(b->rhs, out);
    } else {
      out->push_back(e);
    }
  }

  // The body of `if (c)` (PredicableStores): lets and the stores' values
  // and addresses computed unconditionally, each store predicated on c (a
  // register store as a select).
  void PredicatedStores(llvm::Value* c, const ir::Stmt& s) {
    if (auto* q = s->as<Seq>()) {
      for (const ir::Stmt& t : q->stmts) PredicatedStores(c, t);
      return;
    }
    predicate_ = c;  // for the reads of shared memory in what follows
    if (auto* l = s->as<LetStmt>()) {
      vars_[l->var.get()] = Value(l->value);
    } else {
      auto* st = s->as<Store>();
      auto [v, addr] = StoreOperands(st);
      if (st->buffer->scope == MemScope::Register)
        b_.CreateStore(b_.CreateSelect(c, v, LoadSlot(v->getType(), addr)), addr);
      else
        EmitPredicatedStore(b_, c, v, addr);
    }
    predicate_ = nullptr;
  }

  // On the host, every loop iteration counts down the thread's `poll`;
  // at zero the executor checks the block's deadline, so that a loop that
  // never ends is reported at its location (tmc run --timeout).
  void Poll(bool is_while) {
    if (!o_.host) return;
    llvm::Value* field = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), thread_, TMC_CPU_OFF_POLL);
    llvm::Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt32Ty(), field), b_.getInt32(1));
    b_.CreateStore(left, field);
    auto* check = llvm::BasicBlock::Create(ctx_, "poll", f_);
    auto* go_on = llvm::BasicBlock::Create(ctx_, "poll.done", f_);
    llvm::BasicBlock* split = CondBranchTo(b_.CreateICmpSLE(left, b_.getInt32(0)), check, go_on,
                                           llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 12));
    Start(check, split);
    b_.CreateCall(Runtime("tmc_cpu_poll", b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty()}),
                  {thread_, b_.getInt32(static_cast<uint32_t>(Site())), b_.getInt32(is_while)});
    b_.CreateBr(go_on);
    Start(go_on, split);
  }

  // The address of an element. With checks on (host), `src` (the access as
  // written) is checked dimension by dimension first; an index outside its
  // dimension is reported with the caret on that index and the access goes
  // to scratch memory instead.
  llvm::Value* Address(const Buffer& buf, const std::vector<Expr>& idx, bool is_write = false,
                       const SourceAccess* src = nullptr, SourceRange loc = {}) {
    if (o_.host && o_.check_accesses && src && *src) return CheckedAddress(buf, idx, is_write, *src, loc);
    return FlatAddress(buf, idx, is_write, loc);
  }

  llvm::Value* CheckedAddress(const Buffer& buf, const std::vector<Expr>& idx, bool is_write, const SourceAccess& src,
                              SourceRange loc) {
    size_t rank = src.indices.size();
    auto* i64 = b_.getInt64Ty();
    std::vector<llvm::Value*> index, extent;
    llvm::Value* ok = b_.getTrue();
    for (size_t k = 0; k < rank; ++k) {
      index.push_back(b_.CreateSExt(Value(src.indices[k]), i64));
      extent.push_back(b_.CreateSExt(Value(src.buffer->shape[k]), i64));
      // Unsigned comparison: a negative index is a huge one.
      ok = b_.CreateAnd(ok, b_.CreateICmpULT(index.back(), extent.back()));
    }
    auto* good = llvm::BasicBlock::Create(ctx_, "in_bounds", f_);
    auto* bad = llvm::BasicBlock::Create(ctx_, "out_of_bounds", f_);
    auto* join = llvm::BasicBlock::Create(ctx_, "access", f_);
    llvm::BasicBlock* split = CondBranchTo(ok, good, bad, llvm::MDBuilder(ctx_).createBranchWeights(1000, 1));
    Start(bad, split);
    auto* array = llvm::ArrayType::get(i64, rank);
    llvm::AllocaInst* indices = EntryAlloca(array, "fault_index");
    llvm::AllocaInst* extents = EntryAlloca(array, "fault_extent");
    for (size_t k = 0; k < rank; ++k) {
      b_.CreateStore(index[k], b_.CreateConstInBoundsGEP2_64(array, indices, 0, k));
      b_.CreateStore(extent[k], b_.CreateConstInBoundsGEP2_64(array, extents, 0, k));
    }
    // One site per dimension, consecutive: the runtime reports the first
    // index that is out of range at its own site.
    int32_t first_site = -1;
    for (size_t k = 0; k < rank; ++k) {
      int32_t site = Site(src.indices[k]->loc.IsValid() ? src.indices[k]->loc : loc);
      if (k == 0) first_site = site;
    }
    llvm::Value* scratch = b_.CreateCall(
        Runtime("tmc_cpu_index_fault", b_.getPtrTy(),
                {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt32Ty(),
                 b_.getInt32Ty()}),
        {thread_, b_.getInt32(static_cast<uint32_t>(BufferId(*src.buffer))), b_.getInt32(static_cast<uint32_t>(rank)),
         indices, extents, b_.getInt32(is_write), b_.getInt32(static_cast<uint32_t>(first_site))});
    llvm::BasicBlock* bad_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    Start(good, split);
    llvm::Value* addr = FlatAddress(buf, idx, is_write, loc);
    llvm::BasicBlock* good_end = b_.GetInsertBlock();
    b_.CreateBr(join);
    Start(join, split);
    llvm::PHINode* phi = b_.CreatePHI(addr->getType(), 2);
    phi->addIncoming(addr, good_end);
    phi->addIncoming(scratch, bad_end);  // host code: one address space
    return phi;
  }

  llvm::Value* FlatAddress(const Buffer& buf, const std::vector<Expr>& idx, bool is_write, SourceRange loc) {
    TMC_CHECK(idx.size() == 1, "unflattened access to " + buf.name);
    llvm::Value* base = buffers_.at(&buf);
    llvm::Value* i = IndexValue(idx[0]);
    last_index_ = i;
    access_align_ = llvm::Align(1);  // unknown unless found below
    llvm::Value* addr;
    if (buf.scope == MemScope::Register) {
      if (llvm::AllocaInst* element = ElementSlot(buf, i)) return element;
      base = WholeArray(buf);
      // Not inbounds: with checks on, the index may be out of range. A
      // fragment parameter is a pointer to the caller's array.
      if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(base))
        addr = b_.CreateGEP(alloca->getAllocatedType(), alloca, {b_.getInt32(0), b_.CreateSExtOrTrunc(i, b_.getInt32Ty())});
      else
        addr = b_.CreateGEP(MemTy(buf.elem), base, b_.CreateSExtOrTrunc(i, b_.getInt32Ty()));
    } else if (!o_.host) {
      // A valid access stays inside its tensor (out of bounds is an error
      // the checker finds), which lets LLVM fold the index into the address.
      // The offset's constant part is a second step: the accesses of an
      // unrolled tile then share one base address and differ by constants,
      // which is what LLVM's load/store vectorizer recognizes. For stores
      // (a tile written from registers, row by row) also through the row
      // index times the row length; loads keep the products whole, as the
      // main loops' address arithmetic measured best (peeling them too cost
      // the pipelined matmul 18 registers, docs/benchmarks.md).
      access_align_ = KnownAlignment(buf, i);
      auto [rest, constant] = PeelConstant(i, 8, /*through_products=*/is_write);
      addr = b_.CreateInBoundsGEP(MemTy(buf.elem), base, rest);
      if (constant != 0)
        addr = b_.CreateInBoundsGEP(MemTy(buf.elem), addr, llvm::ConstantInt::get(rest->getType(), constant, true));
    } else {
      addr = b_.CreateGEP(MemTy(buf.elem), base, i);
    }
    if (!o_.host || !o_.check_accesses) return addr;
    int32_t id = BufferId(buf);
    llvm::FunctionCallee fn = AccessCheck();
    return b_.CreateCall(fn, {thread_, addr, b_.CreateSExt(i, b_.getInt64Ty()), extents_.at(&buf),
                              b_.getInt32(static_cast<uint32_t>(ScalarBytes(buf.elem))), b_.getInt32(static_cast<uint32_t>(id)),
                              b_.getInt32(atomic_access_ ? TMC_CPU_ATOMIC : is_write ? TMC_CPU_WRITE : TMC_CPU_READ),
                              b_.getInt32(buf.scope == MemScope::Shared     ? TMC_CPU_SHARED
                                          : buf.scope == MemScope::Register ? TMC_CPU_REGISTER
                                                                            : TMC_CPU_GLOBAL),
                              b_.getInt32(static_cast<uint32_t>(Site(loc)))});
  }

  // An integer value as (rest, c) with value == rest + c, c the constants
  // summed through its additions and subtractions (as emitted: lets are
  // additions too), and with `through_products` scaled through its
  // multiplications by constants (a row index times the row length).
  std::pair<llvm::Value*, int64_t> PeelConstant(llvm::Value* v, int depth, bool through_products) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return {llvm::ConstantInt::get(v->getType(), 0), c->getSExtValue()};
    auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v);
    if (depth == 0 || !op) return {v, 0};
    auto is_zero = [](llvm::Value* x) { return llvm::isa<llvm::ConstantInt>(x) && llvm::cast<llvm::ConstantInt>(x)->isZero(); };
    switch (op->getOpcode()) {
      case llvm::Instruction::Add:
      case llvm::Instruction::Sub: {
        bool add = op->getOpcode() == llvm::Instruction::Add;
        auto [a, ca] = PeelConstant(op->getOperand(0), depth - 1, through_products);
        auto [b, cb] = PeelConstant(op->getOperand(1), depth - 1, through_products);
        if (ca == 0 && cb == 0) return {v, 0};
        llvm::Value* rest = is_zero(b) ? a
                            : add && is_zero(a)
                                ? b
                                : (add ? b_.CreateAdd(a, b, "", false, op->hasNoSignedWrap())
                                       : b_.CreateSub(a, b, "", false, op->hasNoSignedWrap()));
        return {rest, add ? ca + cb : ca - cb};
      }
      case llvm::Instruction::Mul: {
        if (!through_products) return {v, 0};
        auto* k = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1));
        llvm::Value* x = op->getOperand(0);
        if (!k) k = llvm::dyn_cast<llvm::ConstantInt>(x), x = op->getOperand(1);
        if (!k) return {v, 0};
        auto [r, c] = PeelConstant(x, depth - 1, through_products);
        if (c == 0) return {v, 0};
        llvm::Value* rest = is_zero(r) ? r : b_.CreateMul(r, k, "", false, op->hasNoSignedWrap());
        return {rest, c * k->getSExtValue()};
      }
      default: return {v, 0};
    }
  }

  // The alignment of an access at element offset `i`, from the offset's
  // known low zero bits (constants, multiples, `x & ~3` from a
  // divisibility condition) and the base: tensor arguments are 16-byte
  // aligned, shared tensors sit at their planned offset in a 16-byte
  // aligned array. LLVM's load/store vectorizer merges consecutive
  // accesses into one whose first access is this aligned; it does not
  // derive it itself from conditions.
  llvm::Align KnownAlignment(const Buffer& buf, llvm::Value* i) {
    uint64_t bytes = static_cast<uint64_t>(ScalarBytes(buf.elem));
    if (buf.elem == ScalarKind::Bool) bytes = 1;
    unsigned zeros = offset_bits_.TrailingZeros(i);
    uint64_t align = 16;
    if (buf.scope == MemScope::Shared) align = buf.shared_offset > 0 ? std::min<uint64_t>(16, buf.shared_offset & -buf.shared_offset) : 16;
    if (zeros < 16) align = std::min(align, bytes << zeros);
    return llvm::Align(std::max(align, bytes));
  }

  // True if element offset i lies inside shared tensor `buf` for every
  // thread (ValueRange): a read there cannot fault, so a guarded tail reads
  // it unpredicated.
  bool InsideTensor(const Buffer& buf, llvm::Value* i) {
    for (const Expr& d : buf.shape)
      if (!AsConstInt(d)) return false;
    for (const Expr& a : buf.layout_args)
      if (!AsConstInt(a)) return false;
    std::array<int64_t, 3> block{};  // 0: unknown (a device function)
    for (size_t d = 0; d < fn_->block.size() && d < block.size(); ++d) block[d] = fn_->block[d];
    llvm::ConstantRange r = ValueRange(i, block);
    unsigned bits = r.getBitWidth();
    return !r.isEmptySet() && r.getSignedMin().isNonNegative() &&
           r.getSignedMax().slt(llvm::APInt(bits, static_cast<uint64_t>(AllocatedElements(buf)), true));
  }

  // An element offset. On the GPU its + - * cannot overflow (nsw) for a
  // valid access: each index lies in its dimension and the whole offset in
  // the tensor, whose size the runtime bounds (2^31 elements for 32-bit
  // offsets), as C's signed int arithmetic lets nvcc assume. This lets
  // LLVM widen, hoist and strength-reduce offsets across loops. On the host
  // offsets wrap, so that the checker sees the offset actually computed.
  llvm::Value* IndexValue(const Expr& e) {
    bool saved = in_index_;
    in_index_ = !o_.host;
    llvm::Value* v = Value(e);
    in_index_ = saved;
    return v;
  }

  int32_t BufferId(const Buffer& b) {
    if (!o_.buffer_names) return 0;
    o_.buffer_names->push_back(b.name);
    return static_cast<int32_t>(o_.buffer_names->size() - 1);
  }

  // ---------------------------------------------------------------- exprs
  llvm::Value* Value(const Expr& e) {
    switch (e->kind) {
      case ExprKind::IntImm: return llvm::ConstantInt::get(Ty(e->type), static_cast<uint64_t>(e->as<IntImm>()->value), IsSigned(e->type));
      case ExprKind::FloatImm: return llvm::ConstantFP::get(Ty(e->type), e->as<FloatImm>()->value);
      case ExprKind::VarRef: {
        const Var* v = e->as<VarRef>()->var.get();
        if (auto it = slots_.find(v); it != slots_.end()) return b_.CreateLoad(Ty(v->type), it->second, v->name);
        auto it = vars_.find(v);
        TMC_CHECK(it != vars_.end(), "variable " + v->name + " has no value");
        return it->second;
      }
      case ExprKind::Load: {
        auto* l = e->as<Load>();
        llvm::Type* type = MemTy(l->buffer->elem);
        llvm::Value* addr = Address(*l->buffer, l->indices, false, &l->source, l->loc);
        llvm::Value* v;
        if (predicate_ && l->buffer->scope == MemScope::Shared && !InsideTensor(*l->buffer, last_index_)) {
          v = EmitPredicatedLoad(b_, predicate_, type, addr);
        } else if (llvm::Value* known = cse_.KnownValue(addr, type)) {
          v = known;  // a register element written or read before in this block
        } else {
          llvm::LoadInst* load = b_.CreateLoad(type, addr);
          if (!o_.host) load->setAlignment(std::max(access_align_, load->getAlign()));
          v = load;
        }
        return l->buffer->elem == ScalarKind::Bool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
      }
      case ExprKind::Unary: {
        auto* u = e->as<Unary>();
        llvm::Value* a = Value(u->operand);
        switch (u->op) {
          case UnaryOp::Neg: return IsFloat(e->type) ? b_.CreateFNeg(a) : b_.CreateNeg(a);
          case UnaryOp::Not:
          case UnaryOp::BitNot: return b_.CreateNot(a);
        }
        break;
      }
      case ExprKind::Binary: return BinaryValue(e->as<Binary>());
      case ExprKind::Select: {
        auto* s = e->as<Select>();
        return b_.CreateSelect(Value(s->cond), Value(s->then_value), Value(s->else_value));
      }
      case ExprKind::Cast: return CastValue(e->as<Cast>()->operand, e->type);
      case ExprKind::Call: return CallValue(e->as<Call>());
    }
    TMC_CHECK(false, "unhandled expression");
  }

  llvm::Value* CastValue(const Expr& from_e, ScalarKind to) {
    llvm::Value* v = Value(from_e);
    ScalarKind from = from_e->type;
    llvm::Type* t = Ty(to);
    // Conversions to bf16 round once, correctly. LLVM converts a 32- or
    // 64-bit integer to bf16 through f32 on sm_80 (rounding twice), and
    // needs a libcall the JIT lacks (__truncdfbf2) for f64 on the host.
    if (to == ScalarKind::BF16 && IsInteger(from) && ScalarBits(from) >= 32) return F64ToBf16(IntToF64Sticky(v, from));
    if (to == ScalarKind::BF16 && from == ScalarKind::F64) return F64ToBf16(v);
    if (to == ScalarKind::Bool) {
      return IsFloat(from) ? b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                           : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    if (IsFloat(from) && IsFloat(to)) {
      // f16 <-> bf16 goes through f32.
      if (ScalarBits(from) == ScalarBits(to)) return b_.CreateFPTrunc(b_.CreateFPExt(v, b_.getFloatTy()), t);
      return ScalarBits(from) < ScalarBits(to) ? b_.CreateFPExt(v, t) : b_.CreateFPTrunc(v, t);
    }
    if (IsFloat(from)) return IsSigned(to) ? b_.CreateFPToSI(v, t) : b_.CreateFPToUI(v, t);
    if (IsFloat(to)) return IsUnsigned(from) || from == ScalarKind::Bool ? b_.CreateUIToFP(v, t) : b_.CreateSIToFP(v, t);
    return IsSigned(from) ? b_.CreateSExtOrTrunc(v, t) : b_.CreateZExtOrTrunc(v, t);
  }

  // A 32- or 64-bit integer as an f64 that rounds to bf16 (or any type of
  // at most 51 significand bits) exactly as the integer does: exact up to
  // 2^53; above, the bits below the 53 kept ones are ORed into the lowest
  // kept bit (a sticky bit), so the value stays inexact but does not move
  // across a rounding boundary.
  llvm::Value* IntToF64Sticky(llvm::Value* v, ScalarKind from) {
    llvm::Type* f64 = b_.getDoubleTy();
    if (ScalarBits(from) == 32) return IsSigned(from) ? b_.CreateSIToFP(v, f64) : b_.CreateUIToFP(v, f64);
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Value* neg = IsSigned(from) ? b_.CreateICmpSLT(v, b_.getInt64(0)) : b_.getFalse();
    llvm::Value* mag = b_.CreateSelect(neg, b_.CreateNeg(v), v);  // |INT64_MIN| = 2^63 as unsigned
    llvm::Value* lz = b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, mag, b_.getFalse());
    llvm::Value* shift = b_.CreateSelect(b_.CreateICmpULT(lz, b_.getInt64(11)), b_.CreateSub(b_.getInt64(11), lz),
                                         b_.getInt64(0));
    llvm::Value* low = b_.CreateAnd(mag, b_.CreateSub(b_.CreateShl(b_.getInt64(1), shift), b_.getInt64(1)));
    llvm::Value* kept = b_.CreateOr(b_.CreateLShr(mag, shift), b_.CreateZExt(b_.CreateICmpNE(low, b_.getInt64(0)), i64));
    llvm::Value* scale = b_.CreateUIToFP(b_.CreateShl(b_.getInt64(1), shift), f64);  // a power of two: exact
    llvm::Value* d = b_.CreateFMul(b_.CreateUIToFP(kept, f64), scale);
    return b_.CreateSelect(neg, b_.CreateFNeg(d), d);
  }

  // f64 -> bf16, rounded once. The GPU converts directly (LLVM expands it
  // on sm_80). On the host: round to f32 *to odd* (truncate, and set the
  // last bit if inexact), which loses nothing that the rounding to bf16's
  // 8 bits needs, then round to nearest even.
  llvm::Value* F64ToBf16(llvm::Value* v) {
    if (!o_.host) return b_.CreateFPTrunc(v, b_.getBFloatTy());
    llvm::Type* i32 = b_.getInt32Ty();
    llvm::Value* a = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
    llvm::Value* f = b_.CreateFPTrunc(a, b_.getFloatTy());
    llvm::Value* back = b_.CreateFPExt(f, b_.getDoubleTy());
    llvm::Value* bits = b_.CreateBitCast(f, i32);
    // Rounded away from a: step one unit back toward it (a beyond the f32
    // range rounded to inf, which steps back to the largest finite f32).
    llvm::Value* toward = b_.CreateAdd(bits, b_.CreateSelect(b_.CreateFCmpOGT(a, back), b_.getInt32(1),
                                                             b_.getInt32(static_cast<uint32_t>(-1))));
    llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(bits, b_.getInt32(1)), b_.getInt32(0));
    llvm::Value* r = b_.CreateSelect(b_.CreateOr(odd, b_.CreateFCmpUEQ(a, back)), bits, toward);
    llvm::Value* sign = b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt64Ty()), 32), i32);
    r = b_.CreateOr(r, b_.CreateAnd(sign, b_.getInt32(0x80000000u)));
    return b_.CreateFPTrunc(b_.CreateBitCast(r, b_.getFloatTy()), b_.getBFloatTy());
  }

  llvm::Value* BinaryValue(const Binary* e) {
    llvm::Value* a = Value(e->lhs);
    llvm::Value* c = Value(e->rhs);
    ScalarKind t = e->lhs->type;
    bool fp = IsFloat(t), sg = IsSigned(t);
    switch (e->op) {
      case BinaryOp::Add: return fp ? b_.CreateFAdd(a, c) : b_.CreateAdd(a, c, "", false, in_index_ && sg);
      case BinaryOp::Sub: return fp ? b_.CreateFSub(a, c) : b_.CreateSub(a, c, "", false, in_index_ && sg);
      case BinaryOp::Mul: return fp ? b_.CreateFMul(a, c) : b_.CreateMul(a, c, "", false, in_index_ && sg);
      case BinaryOp::Div:
        if (fp) return b_.CreateFDiv(a, c);
        if (o_.host) c = HostDivisor(e, a, c, sg);
        return sg ? b_.CreateSDiv(a, c) : b_.CreateUDiv(a, c);
      case BinaryOp::Mod:
        if (o_.host) c = HostDivisor(e, a, c, sg);
        return sg ? b_.CreateSRem(a, c) : b_.CreateURem(a, c);
      case BinaryOp::Min:
        return fp ? b_.CreateMinNum(a, c) : b_.CreateBinaryIntrinsic(sg ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, c);
      case BinaryOp::Max:
        return fp ? b_.CreateMaxNum(a, c) : b_.CreateBinaryIntrinsic(sg ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, c);
      case BinaryOp::Shl: return b_.CreateShl(a, c);
      case BinaryOp::Shr: return sg ? b_.CreateAShr(a, c) : b_.CreateLShr(a, c);
      case BinaryOp::BitAnd:
      case BinaryOp::And: return b_.CreateAnd(a, c);
      case BinaryOp::BitOr:
      case BinaryOp::Or: return b_.CreateOr(a, c);
      case BinaryOp::BitXor: return b_.CreateXor(a, c);
      case BinaryOp::Lt: return fp ? b_.CreateFCmpOLT(a, c) : sg ? b_.CreateICmpSLT(a, c) : b_.CreateICmpULT(a, c);
      case BinaryOp::Le: return fp ? b_.CreateFCmpOLE(a, c) : sg ? b_.CreateICmpSLE(a, c) : b_.CreateICmpULE(a, c);
      case BinaryOp::Gt: return fp ? b_.CreateFCmpOGT(a, c) : sg ? b_.CreateICmpSGT(a, c) : b_.CreateICmpUGT(a, c);
      case BinaryOp::Ge: return fp ? b_.CreateFCmpOGE(a, c) : sg ? b_.CreateICmpSGE(a, c) : b_.CreateICmpUGE(a, c);
      case BinaryOp::Eq: return fp ? b_.CreateFCmpOEQ(a, c) : b_.CreateICmpEQ(a, c);
      case BinaryOp::Ne: return fp ? b_.CreateFCmpUNE(a, c) : b_.CreateICmpNE(a, c);
    }
    TMC_CHECK(false, "unhandled binary operator");
  }

  // On the host, an integer division by zero (or MIN / -1) would kill the
  // process with SIGFPE: report it to the executor at the expression and
  // divide by 1 instead (the GPU gives an unspecified value, no trap).
  llvm::Value* HostDivisor(const Binary* e, llvm::Value* a, llvm::Value* c, bool sg) {
    auto* t = llvm::cast<llvm::IntegerType>(c->getType());
    llvm::Value* zero = b_.CreateICmpEQ(c, llvm::ConstantInt::get(t, 0));
    llvm::Value* overflow = b_.getFalse();
    if (sg)
      overflow = b_.CreateAnd(b_.CreateICmpEQ(a, llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(t->getBitWidth()))),
                              b_.CreateICmpEQ(c, llvm::ConstantInt::getSigned(t, -1)));
    llvm::Value* bad = b_.CreateOr(zero, overflow);
    auto* fault = llvm::BasicBlock::Create(ctx_, "div.fault", f_);
    auto* ok = llvm::BasicBlock::Create(ctx_, "div.ok", f_);
    llvm::BasicBlock* split = CondBranchTo(bad, fault, ok, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    Start(fault, split);
    SourceRange saved = cur_loc_;
    if (e->loc.IsValid()) cur_loc_ = e->loc;
    int32_t site = Site();
    cur_loc_ = saved;
    // The fault's kind: bit 0 modulo (else division), bit 1 MIN / -1 (else by zero).
    uint32_t mod = e->op == BinaryOp::Mod ? 1 : 0;
    llvm::Value* kind = b_.CreateSelect(zero, b_.getInt32(mod), b_.getInt32(mod | 2));
    b_.CreateCall(Runtime("tmc_cpu_int_fault", b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty()}),
                  {thread_, kind, b_.getInt32(t->getBitWidth()), b_.getInt32(static_cast<uint32_t>(site))});
    b_.CreateBr(ok);
    Start(ok, split);
    return b_.CreateSelect(bad, llvm::ConstantInt::get(t, 1), c);
  }

  // A special register: read once where an earlier read dominates (local_cse.h).
  llvm::Value* Sreg(llvm::Intrinsic::ID id) {
    llvm::Function* read = llvm::Intrinsic::getDeclaration(&mod_, id);
    if (llvm::Value* v = cse_.FindRegisterRead(read)) return v;
    return b_.CreateCall(read);
  }

  // Thread and block indices: special registers on the GPU, fields of the
  // thread context on the host.
  llvm::Value* Index(Intrinsic i) {
    int k = static_cast<int>(i) - static_cast<int>(Intrinsic::ThreadIdxX);
    int which = k / 3, axis = k % 3;
    if (o_.host) {
      const int offsets[] = {TMC_CPU_OFF_TID, TMC_CPU_OFF_BID, TMC_CPU_OFF_BDIM, TMC_CPU_OFF_GDIM};
      return ThreadField(offsets[which], axis);
    }
    namespace LI = llvm::Intrinsic;
    static const LI::ID ids[4][3] = {
        {LI::nvvm_read_ptx_sreg_tid_x, LI::nvvm_read_ptx_sreg_tid_y, LI::nvvm_read_ptx_sreg_tid_z},
        {LI::nvvm_read_ptx_sreg_ctaid_x, LI::nvvm_read_ptx_sreg_ctaid_y, LI::nvvm_read_ptx_sreg_ctaid_z},
        {LI::nvvm_read_ptx_sreg_ntid_x, LI::nvvm_read_ptx_sreg_ntid_y, LI::nvvm_read_ptx_sreg_ntid_z},
        {LI::nvvm_read_ptx_sreg_nctaid_x, LI::nvvm_read_ptx_sreg_nctaid_y, LI::nvvm_read_ptx_sreg_nctaid_z}};
    return Sreg(ids[which][axis]);
  }

  // Host math: LLVM intrinsics where LLVM has them, else libm.
  llvm::Value* HostMath(const std::string& name, ScalarKind t, std::vector<llvm::Value*> args) {
    bool narrow = t == ScalarKind::F16 || t == ScalarKind::BF16;
    if (narrow)
      for (llvm::Value*& a : args) a = b_.CreateFPExt(a, b_.getFloatTy());
    llvm::Type* ct = narrow ? b_.getFloatTy() : Ty(t);
    static const std::map<std::string, llvm::Intrinsic::ID> kIntrinsics = {
        {"exp", llvm::Intrinsic::exp}, {"exp2", llvm::Intrinsic::exp2}, {"log", llvm::Intrinsic::log},
        {"log2", llvm::Intrinsic::log2}, {"sqrt", llvm::Intrinsic::sqrt}, {"sin", llvm::Intrinsic::sin},
        {"cos", llvm::Intrinsic::cos}, {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
        {"fabs", llvm::Intrinsic::fabs}, {"pow", llvm::Intrinsic::pow}, {"fma", llvm::Intrinsic::fma}};
    llvm::Value* r;
    if (auto it = kIntrinsics.find(name); it != kIntrinsics.end()) {
      r = b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, it->second, {ct}), args);
    } else if (name == "rsqrt") {
      llvm::Value* sq = b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::sqrt, {ct}), args);
      r = b_.CreateFDiv(llvm::ConstantFP::get(ct, 1.0), sq);
    } else {
      std::string fname = name + (ct->isFloatTy() ? "f" : "");  // tanhf, erff
      std::vector<llvm::Type*> types(args.size(), ct);
      r = b_.CreateCall(mod_.getOrInsertFunction(fname, llvm::FunctionType::get(ct, types, false)), args);
    }
    return narrow ? b_.CreateFPTrunc(r, Ty(t)) : r;
  }

  // libdevice: __nv_<name>f for f32, __nv_<name> for f64; f16/bf16 compute in f32.
  llvm::Value* Libdevice(const std::string& name, ScalarKind t, std::vector<llvm::Value*> args) {
    if (o_.host) return HostMath(name, t, std::move(args));
    bool narrow = t == ScalarKind::F16 || t == ScalarKind::BF16;
    ScalarKind ct = narrow ? ScalarKind::F32 : t;
    if (narrow)
      for (llvm::Value*& a : args) a = b_.CreateFPExt(a, b_.getFloatTy());
    std::string fname = "__nv_" + name + (ct == ScalarKind::F32 ? "f" : "");
    std::vector<llvm::Type*> types(args.size(), Ty(ct));
    llvm::FunctionCallee f = mod_.getOrInsertFunction(fname, llvm::FunctionType::get(Ty(ct), types, false));
    llvm::Value* r = b_.CreateCall(f, args);
    return narrow ? b_.CreateFPTrunc(r, Ty(t)) : r;
  }

  llvm::Value* CallValue(const Call* c) {
    using I = Intrinsic;
    namespace LI = llvm::Intrinsic;
    // Sites inside the call (warp operations, its accesses) are reported at
    // the call when it has a location, else at its statement.
    SourceRange outer = cur_loc_;
    struct Restore {
      SourceRange& loc;
      SourceRange saved;
      ~Restore() { loc = saved; }
    } restore{cur_loc_, outer};
    if (c->loc.IsValid()) cur_loc_ = c->loc;
    switch (c->intrinsic) {
      case I::ThreadIdxX: case I::ThreadIdxY: case I::ThreadIdxZ:
      case I::BlockIdxX: case I::BlockIdxY: case I::BlockIdxZ:
      case I::BlockDimX: case I::BlockDimY: case I::BlockDimZ:
      case I::GridDimX: case I::GridDimY: case I::GridDimZ:
        return Index(c->intrinsic);
      default: break;
    }
    std::vector<llvm::Value*> args;
    bool atomic = c->intrinsic >= I::AtomicAdd && c->intrinsic <= I::AtomicCas;
    for (size_t i = atomic ? 1 : 0; i < c->args.size(); ++i)
      args.push_back(IsAddressOperand(*c, i) ? nullptr : Value(c->args[i]));
    ScalarKind t = c->type;
    switch (c->intrinsic) {
      case I::Exp: return Libdevice("exp", t, args);
      case I::Exp2:
        // libdevice's __nv_exp2f is the ex2.approx.f32 instruction itself
        // where denormals are kept (nvvm-reflect-ftz is 0): called
        // directly, a kernel whose only math is exp2 (the attention
        // kernels' softmax) does not load libdevice (2% of its compile).
        if (!o_.host && (t == ScalarKind::F32 || t == ScalarKind::F16 || t == ScalarKind::BF16)) {
          llvm::Value* x = t == ScalarKind::F32 ? args[0] : b_.CreateFPExt(args[0], b_.getFloatTy());
          llvm::Value* r = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {}, {x});
          return t == ScalarKind::F32 ? r : b_.CreateFPTrunc(r, Ty(t));
        }
        return Libdevice("exp2", t, args);
      case I::Log: return Libdevice("log", t, args);
      case I::Log2: return Libdevice("log2", t, args);
      case I::Sqrt:
        // llvm.sqrt becomes IEEE sqrt.rn, as nvcc's default -prec-sqrt=true
        // gives; libdevice's __nv_sqrtf would pick the approximate one.
        if ((t == ScalarKind::F32 || t == ScalarKind::F64) && !o_.host)
          return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]);
        return Libdevice("sqrt", t, args);
      case I::Rsqrt: return Libdevice("rsqrt", t, args);
      case I::Tanh: return Libdevice("tanh", t, args);
      case I::Erf: return Libdevice("erf", t, args);
      case I::Sin: return Libdevice("sin", t, args);
      case I::Cos: return Libdevice("cos", t, args);
      case I::Floor: return Libdevice("floor", t, args);
      case I::Ceil: return Libdevice("ceil", t, args);
      case I::Pow: return Libdevice("pow", t, args);
      case I::Fma: return Libdevice("fma", t, args);
      case I::Sigmoid: {
        llvm::Value* one = llvm::ConstantFP::get(Ty(t), 1.0);
        llvm::Value* e = Libdevice("exp", t, {b_.CreateFNeg(args[0])});
        return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
      }
      case I::Abs:
        if (IsFloat(t)) return Libdevice("fabs", t, args);  // host: llvm.fabs
        if (IsUnsigned(t)) return args[0];  // llvm.abs would read it as signed
        return b_.CreateBinaryIntrinsic(LI::abs, args[0], b_.getFalse());
      case I::ShflXor:
      case I::ShflDown:
      case I::ShflUp:
      case I::ShflIdx: return Shuffle(c->intrinsic, t, args[0], args[1]);
      case I::AtomicAdd:
      case I::AtomicMin:
      case I::AtomicMax:
      case I::AtomicExch:
      case I::AtomicCas: return Atomic(c, args);
      case I::MmaM16N8K16: return Mma(*c);
      case I::Wgmma: return Wgmma(*c);
      case I::WgmmaFence: return WgmmaSync(*c, TMC_CPU_WGMMA_FENCE, 0, "wgmma.fence.sync.aligned;");
      case I::WgmmaCommit: return WgmmaSync(*c, TMC_CPU_WGMMA_COMMIT, 0, "wgmma.commit_group.sync.aligned;");
      case I::FenceProxyAsync:
        if (o_.host) {  // counted for --check-races (the executor's reads through the async proxy)
          b_.CreateCall(Runtime("tmc_cpu_fence_proxy_async", b_.getVoidTy(), {b_.getPtrTy()}), {thread_});
          return b_.getInt32(0);
        }
        return InlinePtx("fence.proxy.async.shared::cta;");
      case I::SetMaxNReg: {
        // A warpgroup operation; on the host the warp's lanes meet, as for wgmma's fences.
        bool inc = *AsConstInt(c->args[1]) != 0;
        int64_t count = *AsConstInt(c->args[0]);
        std::string text = fmt::format("setmaxnreg.{}.sync.aligned.u32 {};", inc ? "inc" : "dec", count);
        return o_.host ? WgmmaSync(*c, inc ? TMC_CPU_SETMAXNREG_INC : TMC_CPU_SETMAXNREG_DEC, count, text)
                       : InlinePtx(text.c_str());
      }
      case I::WgmmaWait: {
        int64_t n = *AsConstInt(c->args[0]);
        return WgmmaSync(*c, TMC_CPU_WGMMA_WAIT, n, fmt::format("wgmma.wait_group.sync.aligned {};", n));
      }
      case I::MbarrierInit:
      case I::MbarrierArrive:
      case I::MbarrierArriveCluster:
      case I::MbarrierArriveExpectTx:
      case I::MbarrierWait: return Mbarrier(*c);
      case I::TmaLoad:
      case I::TmaLoadMulticast:
      case I::TmaStore: return Tma(*c);
      case I::ClusterSync: {
        // barrier.cluster.arrive (release) and .wait (acquire): every
        // thread of every block of the cluster, and their memory.
        if (!o_.host) return InlinePtx("barrier.cluster.arrive;\n\tbarrier.cluster.wait;");
        b_.CreateCall(Runtime("tmc_cpu_cluster_sync", b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty()}),
                      {thread_, b_.getInt32(static_cast<uint32_t>(Site()))});
        return b_.getInt32(0);
      }
      case I::TmaStoreCommit: return TmaStoreSync(TMC_CPU_TMA_STORE_COMMIT, 0, "cp.async.bulk.commit_group;");
      case I::TmaStoreWait: {
        int64_t n = *AsConstInt(c->args[0]);
        return TmaStoreSync(TMC_CPU_TMA_STORE_WAIT, n, fmt::format("cp.async.bulk.wait_group.read {};", n));
      }
      case I::LdMatrix: return LdMatrix(*c);
      case I::CpAsync: {
        auto* dst = c->args[0]->as<Load>();
        auto* src = c->args[1]->as<Load>();
        int64_t bytes = *AsConstInt(c->args[2]);
        // The zero-filling form: args[3] is the bytes read (0..bytes).
        llvm::Value* src_bytes = c->args.size() > 3 ? Value(c->args[3]) : nullptr;
        if (o_.host) return HostCpAsync(*dst, *src, bytes, src_bytes);
        // Inline PTX, not LLVM's intrinsic: with 32-bit shared pointers
        // (nvptx-short-ptr) LLVM 19 has no instruction pattern for it.
        // The shared address is a 32-bit register, as nvcc writes it.
        std::string text = fmt::format("cp.async.{}.shared.global [$0], [$1], {}{};", bytes == 16 ? "cg" : "ca", bytes,
                                       src_bytes ? ", $2" : "");
        std::vector<llvm::Type*> params{b_.getInt32Ty(), b_.getPtrTy(kGlobalAS)};
        if (src_bytes) params.push_back(b_.getInt32Ty());
        auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
        auto* asm_ = llvm::InlineAsm::get(type, text, src_bytes ? "r,l,r,~{memory}" : "r,l,~{memory}",
                                          /*hasSideEffects=*/true);
        llvm::Value* shared = b_.CreatePtrToInt(Address(*dst->buffer, dst->indices), b_.getInt32Ty());
        std::vector<llvm::Value*> operands{shared, Address(*src->buffer, src->indices)};
        if (src_bytes) operands.push_back(src_bytes);
        b_.CreateCall(type, asm_, operands);
        return b_.getInt32(0);
      }
      case I::CpAsyncCommit:
        if (o_.host) {
          b_.CreateCall(Runtime("tmc_cpu_cp_async_commit", b_.getVoidTy(), {b_.getPtrTy()}), {thread_});
          return b_.getInt32(0);
        }
        b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, LI::nvvm_cp_async_commit_group));
        return b_.getInt32(0);
      case I::CpAsyncWait:
        if (o_.host) {
          b_.CreateCall(Runtime("tmc_cpu_cp_async_wait", b_.getVoidTy(), {b_.getPtrTy(), b_.getInt32Ty()}),
                        {thread_, b_.getInt32(static_cast<uint32_t>(*AsConstInt(c->args[0])))});
          return b_.getInt32(0);
        }
        b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, LI::nvvm_cp_async_wait_group),
                      {b_.getInt32(static_cast<uint32_t>(*AsConstInt(c->args[0])))});
        return b_.getInt32(0);
      case I::CallFunc: {
        llvm::Function* f = functions_.at(c->callee);
        std::vector<llvm::Value*> call_args;
        for (size_t i = 0; i < c->args.size(); ++i) {
          if (c->callee->params[i].buffer) {
            // The tensor, or a view of it: the address of its first
            // element, not an access (no check, no race-check read).
            auto* l = c->args[i]->as<Load>();
            TMC_CHECK(l->indices.size() == 1, "unflattened tensor argument");
            const Buffer& buf = *l->buffer;
            llvm::Value* base = WholeArray(buf);
            llvm::Value* index = Value(l->indices[0]);
            if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(base))
              call_args.push_back(
                  b_.CreateInBoundsGEP(alloca->getAllocatedType(), alloca, {b_.getInt32(0), b_.CreateSExtOrTrunc(index, b_.getInt32Ty())}));
            else
              call_args.push_back(b_.CreateGEP(MemTy(buf.elem), base, index));
          } else {
            call_args.push_back(args[i]);
          }
        }
        if (o_.host) call_args.push_back(thread_);
        return b_.CreateCall(f, call_args);
      }
      default: break;
    }
    TMC_CHECK(false, "unhandled intrinsic");
  }

  // cp_async on the host: the executor queues the copy until the
  // cp_async_wait that completes its group (codegen/cpu/cpu_abi.h), and
  // checks alignment, every element's bounds (when accesses are checked)
  // and races.
  llvm::Value* HostCpAsync(const Load& dst, const Load& src, int64_t bytes, llvm::Value* src_bytes) {
    auto side = [&](const Load& l, std::vector<llvm::Value*>& args) {
      TMC_CHECK(l.indices.size() == 1, "unflattened access to " + l.buffer->name);
      llvm::Value* i = Value(l.indices[0]);
      args.push_back(ElementPointer(*l.buffer, i));
      args.push_back(b_.CreateSExt(i, b_.getInt64Ty()));
      args.push_back(o_.check_accesses ? extents_.at(l.buffer.get()) : b_.getInt64(static_cast<uint64_t>(-1)));
      args.push_back(b_.getInt32(static_cast<uint32_t>(BufferId(*l.buffer))));
    };
    std::vector<llvm::Value*> args{thread_};
    side(dst, args);
    side(src, args);
    args.push_back(b_.getInt32(static_cast<uint32_t>(ScalarBytes(dst.buffer->elem))));
    args.push_back(b_.getInt32(static_cast<uint32_t>(bytes)));
    args.push_back(src_bytes ? src_bytes : b_.getInt32(static_cast<uint32_t>(bytes)));
    args.push_back(b_.getInt32(static_cast<uint32_t>(Site())));
    llvm::Type *p = b_.getPtrTy(), *i64 = b_.getInt64Ty(), *i32 = b_.getInt32Ty();
    b_.CreateCall(Runtime("tmc_cpu_cp_async", b_.getVoidTy(), {p, p, i64, i64, i32, p, i64, i64, i32, i32, i32, i32, i32}),
                  args);
    return b_.getInt32(0);
  }

  // The host address of element `index` of `b`, with no access check: for
  // operands that stand for an address (copies, wgmma and mbarrier operands).
  llvm::Value* ElementPointer(const Buffer& b, llvm::Value* index) {
    return b_.CreateGEP(MemTy(b.elem), WholeArray(b), index);
  }

  // A host pointer's byte offset in the block's shared memory.
  llvm::Value* HostSharedOffset(llvm::Value* p) {
    return b_.CreateSub(b_.CreatePtrToInt(p, b_.getInt64Ty()), b_.CreatePtrToInt(shared_, b_.getInt64Ty()));
  }

  // A register array in device code starts as one alloca per element,
  // made when first accessed: LLVM's mem2reg promotes those directly, where
  // an array needs SROA to split it first (three times the work: 12% of
  // the LLVM optimization of the attention kernels). Once tile loops are
  // unrolled nearly every index is a constant. Returns null (the caller
  // goes through the array) for a run-time or out-of-range index, or for
  // a buffer that is not, or no longer, kept as elements.
  llvm::AllocaInst* ElementSlot(const Buffer& buf, llvm::Value* index) {
    auto it = scalarized_.find(&buf);
    auto* constant = llvm::dyn_cast<llvm::ConstantInt>(index);
    if (it == scalarized_.end() || !constant) return nullptr;
    std::vector<llvm::AllocaInst*>& elements = it->second.elements;
    int64_t k = constant->getSExtValue();
    if (k < 0 || k >= static_cast<int64_t>(elements.size())) return nullptr;
    llvm::AllocaInst*& element = elements[static_cast<size_t>(k)];
    if (!element) {
      element = EntryAlloca(MemTy(buf.elem), buf.name);
      cse_.MarkPrivate(element);
    }
    return element;
  }

  // The whole array of a buffer (its base address), for an access that
  // cannot go to one element: the elements made so far become the array's
  // (their uses renamed to addresses into it), and the buffer stays an
  // array from here on.
  llvm::Value* WholeArray(const Buffer& buf) {
    auto it = scalarized_.find(&buf);
    if (it == scalarized_.end()) return buffers_.at(&buf);
    llvm::AllocaInst* array = it->second.array;
    // In the entry block's allocas, which precede all of its code.
    llvm::IRBuilder<> eb(entry_, std::next(array->getIterator()));
    for (size_t k = 0; k < it->second.elements.size(); ++k) {
      llvm::AllocaInst* element = it->second.elements[k];
      if (!element) continue;
      cse_.ForgetPrivate(element);
      element->replaceAllUsesWith(eb.CreateInBoundsGEP(array->getAllocatedType(), array,
                                                       {eb.getInt32(0), eb.getInt32(static_cast<uint32_t>(k))}));
      element->eraseFromParent();
    }
    scalarized_.erase(it);
    return array;
  }

  // A load of a register slot, or the value the block last stored to or
  // loaded from it (LocalCse::KnownValue).
  llvm::Value* LoadSlot(llvm::Type* type, llvm::Value* slot) {
    if (llvm::Value* known = cse_.KnownValue(slot, type)) return known;
    return b_.CreateLoad(type, slot);
  }

  // Element `base + k` of a register buffer (an entry-block alloca);
  // `base` is a fragment operand's register offset (constant once tile
  // loops are unrolled).
  llvm::Value* RegisterSlot(const Buffer& b, llvm::Value* base, int64_t k) {
    llvm::Value* index = b_.CreateAdd(base, b_.getInt32(static_cast<uint32_t>(k)));
    if (llvm::AllocaInst* element = ElementSlot(b, index)) return element;
    llvm::Value* array = WholeArray(b);
    if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(array))
      return b_.CreateInBoundsGEP(alloca->getAllocatedType(), alloca, {b_.getInt32(0), index});
    return b_.CreateInBoundsGEP(MemTy(b.elem), array, index);  // a fragment parameter
  }

  // A fragment operand's first register, checked under --check-bounds on
  // the host when it is a run-time value (a tile index not unrolled): its
  // `count` registers must lie inside the buffer. An offset outside is
  // reported (as an access to its first and last register) and replaced by
  // 0, so that the instruction still touches only the buffer.
  llvm::Value* FragmentOffset(const Buffer& b, const Expr& offset, int64_t count, bool write) {
    llvm::Value* off = Value(offset);
    if (!o_.host || !o_.check_accesses || llvm::isa<llvm::ConstantInt>(off)) return off;
    llvm::Value* size = extents_.at(&b);
    llvm::Value* first = b_.CreateSExt(off, b_.getInt64Ty());
    llvm::Value* last = b_.CreateAdd(first, b_.getInt64(static_cast<uint64_t>(count - 1)));
    llvm::FunctionCallee fn = AccessCheck();
    for (llvm::Value* k : {first, last})
      b_.CreateCall(fn, {thread_, WholeArray(b), k, size, b_.getInt32(static_cast<uint32_t>(ScalarBytes(b.elem))),
                         b_.getInt32(static_cast<uint32_t>(BufferId(b))),
                         b_.getInt32((write ? TMC_CPU_WRITE : TMC_CPU_READ) | TMC_CPU_OPERAND),
                         b_.getInt32(TMC_CPU_REGISTER), b_.getInt32(static_cast<uint32_t>(Site()))});
    llvm::Value* inside = b_.CreateAnd(b_.CreateICmpSGE(first, b_.getInt64(0)), b_.CreateICmpSLT(last, size));
    return b_.CreateSelect(inside, off, llvm::ConstantInt::get(off->getType(), 0));
  }

  // Registers k, k+1 of an f16 (or bf16) fragment as one <2 x half> (<2 x bfloat>).
  llvm::Value* HalfPair(const Buffer& b, llvm::Value* base, int64_t k) {
    llvm::Type* et = Ty(b.elem);
    auto* vt = llvm::FixedVectorType::get(et, 2);
    llvm::Value* halves[2] = {LoadSlot(et, RegisterSlot(b, base, k)), LoadSlot(et, RegisterSlot(b, base, k + 1))};
    // Both halves of one pair that an ldmatrix or mma wrote (known at
    // emission in the block that wrote them): that pair, not a rebuilt
    // copy, which LLVM's SLP vectorizer would examine at length (2-5% of
    // a tensor-core kernel's compile) before InstCombine folded it away.
    if (llvm::Value* pair = SourcePair(halves[0], halves[1], vt)) return pair;
    llvm::Value* v = llvm::UndefValue::get(vt);
    for (unsigned i = 0; i < 2; ++i) v = b_.CreateInsertElement(v, halves[i], b_.getInt32(i));
    return v;
  }

  // The vector of type `vt` whose elements 0 and 1 `lo` and `hi` extract,
  // if they do; else null.
  static llvm::Value* SourcePair(llvm::Value* lo, llvm::Value* hi, llvm::Type* vt) {
    auto* e0 = llvm::dyn_cast<llvm::ExtractElementInst>(lo);
    auto* e1 = llvm::dyn_cast<llvm::ExtractElementInst>(hi);
    if (!e0 || !e1 || e0->getVectorOperand() != e1->getVectorOperand() || e0->getVectorOperandType() != vt) return nullptr;
    auto* i0 = llvm::dyn_cast<llvm::ConstantInt>(e0->getIndexOperand());
    auto* i1 = llvm::dyn_cast<llvm::ConstantInt>(e1->getIndexOperand());
    return i0 && i1 && i0->isZero() && i1->isOne() ? e0->getVectorOperand() : nullptr;
  }

  // mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: D = A * B + C, each
  // operand at its register offset (args) in its buffer.
  llvm::Value* Mma(const Call& c) {
    const Buffer &d = *c.buffers[0], &a = *c.buffers[1], &b = *c.buffers[2], &acc = *c.buffers[3];
    llvm::Value *od = FragmentOffset(d, c.args[0], 4, true), *oa = FragmentOffset(a, c.args[1], 8, false),
                *ob = FragmentOffset(b, c.args[2], 4, false), *oc = FragmentOffset(acc, c.args[3], 4, false);
    bool bf16 = a.elem == ScalarKind::BF16;
    if (o_.host) {
      llvm::Type* p = b_.getPtrTy();
      b_.CreateCall(Runtime("tmc_cpu_mma_m16n8k16", b_.getVoidTy(), {p, p, p, p, p, b_.getInt32Ty(), b_.getInt32Ty()}),
                    {thread_, RegisterSlot(d, od, 0), RegisterSlot(a, oa, 0), RegisterSlot(b, ob, 0),
                     RegisterSlot(acc, oc, 0), b_.getInt32(bf16), b_.getInt32(static_cast<uint32_t>(Site()))});
      return b_.getInt32(0);
    }
    // f16 pairs travel as <2 x half>; the bf16 intrinsic takes them as i32.
    auto pair = [&](const Buffer& buf, llvm::Value* base, int64_t k) {
      llvm::Value* v = HalfPair(buf, base, k);
      return bf16 ? b_.CreateBitCast(v, b_.getInt32Ty()) : v;
    };
    std::vector<llvm::Value*> args;
    for (int64_t k = 0; k < 8; k += 2) args.push_back(pair(a, oa, k));
    for (int64_t k = 0; k < 4; k += 2) args.push_back(pair(b, ob, k));
    for (int64_t k = 0; k < 4; ++k) args.push_back(LoadSlot(b_.getFloatTy(), RegisterSlot(acc, oc, k)));
    llvm::Value* r = b_.CreateCall(
        llvm::Intrinsic::getDeclaration(&mod_, bf16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                                                    : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32),
        args);
    for (unsigned k = 0; k < 4; ++k) b_.CreateStore(b_.CreateExtractValue(r, k), RegisterSlot(d, od, k));
    return b_.getInt32(0);
  }

  // wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}: inline PTX
  // (WgmmaDevice; LLVM 19 has no intrinsic). On the host the executor
  // decodes the same descriptors.
  llvm::Value* Wgmma(const Call& c) {
    if (!o_.host) {
      WgmmaDevice({&c});
      return b_.getInt32(0);
    }
    const Buffer& d = *c.buffers[0];
    const Buffer* ar = c.buffers.size() == 2 ? c.buffers[1].get() : nullptr;  // A in registers
    auto* a = c.args[1]->as<Load>();
    auto* bl = c.args[2]->as<Load>();
    int64_t n = *AsConstInt(c.args[4]);
    uint64_t a_bits = static_cast<uint64_t>(*AsConstInt(c.args[5])), b_bits = static_cast<uint64_t>(*AsConstInt(c.args[6]));
    int64_t trans_b = *AsConstInt(c.args[7]);
    bool bf16 = (ar ? ar->elem : a->buffer->elem) == ScalarKind::BF16;
    llvm::Value* oa = ar ? FragmentOffset(*ar, c.args[1], 8, false) : nullptr;
    llvm::Value* od = FragmentOffset(d, c.args[0], n / 2, true);
    llvm::Value* scale = b_.CreateZExt(Value(c.args[3]), b_.getInt32Ty());
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Value *da = ar ? nullptr : WgmmaDescriptor(*a, a_bits), *db = WgmmaDescriptor(*bl, b_bits);
    llvm::Type *p = b_.getPtrTy(), *i32 = b_.getInt32Ty();
    auto base = [&](const Buffer& buf) { return HostSharedOffset(buffers_.at(&buf)); };
    // A in registers: the thread's fragment (the executor gathers the
    // warp's), no descriptor.
    b_.CreateCall(Runtime("tmc_cpu_wgmma", b_.getVoidTy(), {p, p, p, i64, i64, i32, i32, i32, i32, i32, i64, i32, i64, i32}),
                  {thread_, RegisterSlot(d, od, 0),
                   ar ? RegisterSlot(*ar, oa, 0) : static_cast<llvm::Value*>(llvm::ConstantPointerNull::get(b_.getPtrTy())),
                   ar ? b_.getInt64(0) : da, db, b_.getInt32(static_cast<uint32_t>(n)),
                   b_.getInt32(static_cast<uint32_t>(trans_b)), scale, b_.getInt32(bf16),
                   b_.getInt32(static_cast<uint32_t>(ar ? -1 : BufferId(*a->buffer))), ar ? b_.getInt64(0) : base(*a->buffer),
                   b_.getInt32(static_cast<uint32_t>(BufferId(*bl->buffer))), base(*bl->buffer),
                   b_.getInt32(static_cast<uint32_t>(Site()))});
    return b_.getInt32(0);
  }

  // The wgmma calls at stmts[i...] that one inline asm issues: consecutive
  // calls on the same accumulator registers (the k16 steps of one
  // `wgmma(...)`, unrolled) with A in the same place. One statement with
  // the accumulators once instead of one per instruction: LLVM parses,
  // selects and coalesces each of its ~2 x 32-128 operands per statement.
  // No instruction may come between them anyway (their order and
  // registers are the same), so the PTX is the same.
  static std::vector<const Call*> WgmmaChain(const std::vector<ir::Stmt>& stmts, size_t i) {
    auto wgmma = [&](size_t k) -> const Call* {
      auto* e = stmts[k]->as<Evaluate>();
      auto* c = e ? e->value->as<Call>() : nullptr;
      return c && c->intrinsic == Intrinsic::Wgmma ? c : nullptr;
    };
    std::vector<const Call*> chain;
    const Call* first = wgmma(i);
    if (!first || !AsConstInt(first->args[0])) return chain;
    for (size_t k = i; k < stmts.size(); ++k) {
      const Call* c = wgmma(k);
      if (!c || c->buffers[0] != first->buffers[0] || c->buffers.size() != first->buffers.size() ||
          (c->buffers.size() == 2 && c->buffers[1] != first->buffers[1]) || AsConstInt(c->args[0]) != AsConstInt(first->args[0]) ||
          *AsConstInt(c->args[4]) != *AsConstInt(first->args[4]))
        break;
      chain.push_back(c);
    }
    return chain;
  }

  // wgmma.mma_async, one instruction per call of `chain` (WgmmaChain), in
  // one inline asm. The accumulator registers go in and out ("+f" as
  // CUTLASS writes them); with accumulate false (scale-d) an instruction
  // ignores their old values. Operands: D's registers, then per
  // instruction A (a descriptor, or four registers of two halves each), B's
  // descriptor and scale-d, each instruction with its own predicate.
  void WgmmaDevice(const std::vector<const Call*>& chain) {
    const Call& first = *chain.front();
    const Buffer& d = *first.buffers[0];
    int64_t n = *AsConstInt(first.args[4]);
    int64_t regs = n / 2;
    llvm::Value* od = FragmentOffset(d, first.args[0], regs, true);
    std::vector<llvm::Value*> slots;
    std::string accumulators;
    for (int64_t i = 0; i < regs; ++i) {
      accumulators += fmt::format("{}${}", i ? ", " : "", i);
      slots.push_back(RegisterSlot(d, od, i));
    }
    std::string text = fmt::format("{{\n.reg .pred p<{}>;\n", chain.size());
    std::vector<llvm::Value*> inputs;
    std::string constraints;
    for (size_t k = 0; k < chain.size(); ++k) {
      const Call& c = *chain[k];
      const Buffer* ar = c.buffers.size() == 2 ? c.buffers[1].get() : nullptr;  // A in registers
      auto* a = c.args[1]->as<Load>();
      auto* bl = c.args[2]->as<Load>();
      uint64_t a_bits = static_cast<uint64_t>(*AsConstInt(c.args[5])), b_bits = static_cast<uint64_t>(*AsConstInt(c.args[6]));
      int64_t trans_b = *AsConstInt(c.args[7]);
      bool bf16 = (ar ? ar->elem : a->buffer->elem) == ScalarKind::BF16;
      const char* t = bf16 ? "bf16" : "f16";
      int64_t at = 2 * regs + static_cast<int64_t>(inputs.size());  // this instruction's first operand
      std::string a_text;
      if (ar) {
        llvm::Value* oa = FragmentOffset(*ar, c.args[1], 8, false);
        for (int64_t r = 0; r < 4; ++r) {
          inputs.push_back(b_.CreateBitCast(HalfPair(*ar, oa, 2 * r), b_.getInt32Ty()));
          a_text += fmt::format("{}${}", r ? ", " : "{", at + r);
          constraints += "r,";
        }
        a_text += "}";
      } else {
        inputs.push_back(WgmmaDescriptor(*a, a_bits));
        a_text = fmt::format("${}", at);
        constraints += "l,";
      }
      int64_t b_at = 2 * regs + static_cast<int64_t>(inputs.size());
      inputs.push_back(WgmmaDescriptor(*bl, b_bits));
      inputs.push_back(b_.CreateZExt(Value(c.args[3]), b_.getInt32Ty()));
      constraints += k + 1 < chain.size() ? "l,r," : "l,r";
      // imm-trans-a exists only for A in shared memory.
      text += fmt::format("setp.ne.b32 p{}, ${}, 0;\nwgmma.mma_async.sync.aligned.m64n{}k16.f32.{}.{} {{{}}}, {}, ${}, p{}, 1, 1, {}{};\n",
                          k, b_at + 1, n, t, t, accumulators, a_text, b_at, k, ar ? "" : "0, ", trans_b);
    }
    AsmOnRegisters(text + "}", slots, inputs, constraints);
  }

  // A wgmma matrix descriptor: the constant bits the lowering computed
  // (LBO, SBO, swizzle mode) and the operand's shared address,
  // (addr & 0x3FFFF) >> 4, in the low 14 bits (on the host, its offset in
  // the executor's shared memory, which the executor decodes alike).
  llvm::Value* WgmmaDescriptor(const Load& l, uint64_t bits) {
    TMC_CHECK(l.indices.size() == 1, "unflattened wgmma operand");
    llvm::Value* offset =
        o_.host ? HostSharedOffset(ElementPointer(*l.buffer, Value(l.indices[0])))
                : b_.CreateZExt(b_.CreatePtrToInt(Address(*l.buffer, l.indices), b_.getInt32Ty()), b_.getInt64Ty());
    llvm::Value* start = b_.CreateLShr(b_.CreateAnd(offset, b_.getInt64(0x3FFFF)), b_.getInt64(4));
    return b_.CreateOr(start, b_.getInt64(bits));
  }

  // mbarrier.init / arrive / arrive.expect_tx / try_wait.parity on a shared
  // mbarrier (inline PTX with its 32-bit shared address, as CUTLASS's
  // ClusterBarrier). The wait loops on try_wait, which suspends the thread
  // for a while in hardware. On the host: the executor's mbarriers
  // (tmc_cpu_mbarrier), which park a waiting thread until its phase completes.
  llvm::Value* Mbarrier(const Call& c) {
    auto* bar = c.args[0]->as<Load>();
    llvm::Value* value = c.args.size() > 1 ? Value(c.args[1]) : b_.getInt32(0);
    int op = c.intrinsic == Intrinsic::MbarrierInit           ? TMC_CPU_MBARRIER_INIT
             : c.intrinsic == Intrinsic::MbarrierArrive        ? TMC_CPU_MBARRIER_ARRIVE
             : c.intrinsic == Intrinsic::MbarrierArriveCluster ? TMC_CPU_MBARRIER_ARRIVE_CLUSTER
             : c.intrinsic == Intrinsic::MbarrierWait          ? TMC_CPU_MBARRIER_WAIT
                                                               : TMC_CPU_MBARRIER_ARRIVE_EXPECT_TX;
    if (o_.host) {
      TMC_CHECK(bar->indices.size() == 1, "unflattened mbarrier");
      llvm::Value* index = Value(bar->indices[0]);
      llvm::Value* p = ElementPointer(*bar->buffer, index);
      llvm::Type *ptr = b_.getPtrTy(), *i32 = b_.getInt32Ty();
      b_.CreateCall(Runtime("tmc_cpu_mbarrier", b_.getVoidTy(), {ptr, i32, ptr, i32, i32, b_.getInt64Ty(), b_.getInt64Ty(), i32}),
                    {thread_, b_.getInt32(static_cast<uint32_t>(op)), p, value,
                     b_.getInt32(static_cast<uint32_t>(BufferId(*bar->buffer))), b_.CreateSExt(index, b_.getInt64Ty()),
                     b_.getInt64(static_cast<uint64_t>(AllocatedElements(*bar->buffer))),
                     b_.getInt32(static_cast<uint32_t>(Site()))});
      return b_.getInt32(0);
    }
    // The init is a generic-proxy write; the TMA unit completes transactions
    // on the barrier through the async proxy: the fence makes the init
    // visible to it (as the CUDA guide's TMA example does).
    // In a cluster, the other blocks' arrivals and multicast copies reach
    // it too: fence.mbarrier_init orders the init before them (with the
    // cluster_sync that must follow, as CUTLASS's fence_barrier_init).
    bool cluster = fn_ && fn_->ClusterBlocks() > 1;
    // In a cluster, waits acquire at cluster scope: the other blocks' arrivals release there.
    std::string text =
        op == TMC_CPU_MBARRIER_INIT
            ? fmt::format("mbarrier.init.shared::cta.b64 [$0], $1;\n\tfence.proxy.async.shared::cta;{}",
                          cluster ? "\n\tfence.mbarrier_init.release.cluster;" : "")
        : op == TMC_CPU_MBARRIER_ARRIVE ? "mbarrier.arrive.shared::cta.b64 _, [$0];"
        : op == TMC_CPU_MBARRIER_ARRIVE_CLUSTER
            // The barrier at the same offset in block $1 of the cluster.
            ? "{\n.reg .b32 remote_bar;\nmapa.shared::cluster.u32 remote_bar, $0, $1;\n"
              "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote_bar];\n}"
        : op == TMC_CPU_MBARRIER_WAIT
            ? fmt::format("{{\n.reg .pred P1;\nLAB_WAIT:\nmbarrier.try_wait.parity{}.shared::cta.b64 P1, [$0], $1;\n"
                          "@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}}",
                          cluster ? ".acquire.cluster" : "")
            : "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;";
    llvm::Value* addr = b_.CreatePtrToInt(Address(*bar->buffer, bar->indices), b_.getInt32Ty());
    bool two = op != TMC_CPU_MBARRIER_ARRIVE;
    std::vector<llvm::Type*> params{b_.getInt32Ty()};
    std::vector<llvm::Value*> operands{addr};
    if (two) {
      params.push_back(b_.getInt32Ty());
      operands.push_back(value);
    }
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    b_.CreateCall(type, llvm::InlineAsm::get(type, text, two ? "r,r,~{memory}" : "r,~{memory}", /*hasSideEffects=*/true),
                  operands);
    return b_.getInt32(0);
  }

  // cp.async.bulk.tensor: a box between the tensor map (a __grid_constant__
  // kernel parameter, given by its generic address) and a shared tile;
  // coordinates innermost first. A load completes its bytes on the
  // mbarrier (shared::cluster addresses: a CTA's own shared window is part
  // of its cluster's). On the host: the executor's copy (tmc_cpu_tma).
  llvm::Value* Tma(const Call& c) {
    const Buffer& map = *c.buffers[0];
    auto* tile = c.args[0]->as<Load>();
    bool multicast = c.intrinsic == Intrinsic::TmaLoadMulticast;
    bool load = c.intrinsic == Intrinsic::TmaLoad || multicast;
    size_t first = multicast ? 3 : load ? 2 : 1;
    size_t rank = c.args.size() - first;
    llvm::Type *i32 = b_.getInt32Ty(), *i64 = b_.getInt64Ty(), *ptr = b_.getPtrTy();
    TMC_CHECK(tile->indices.size() == 1, "unflattened TMA tile");
    if (o_.host) {
      // The geometry: the tensor's extents, the box, the origin.
      llvm::AllocaInst* geometry = EntryAlloca(llvm::ArrayType::get(i64, 3 * rank), "tma_geometry");
      auto put = [&](size_t at, llvm::Value* v) {
        b_.CreateStore(b_.CreateSExt(v, i64), b_.CreateConstInBoundsGEP2_32(geometry->getAllocatedType(), geometry, 0,
                                                                             static_cast<unsigned>(at)));
      };
      for (size_t k = 0; k < rank; ++k) {
        put(k, Value(map.shape[k]));
        put(rank + k, b_.getInt64(static_cast<uint64_t>(map.tma_box[k])));
        put(2 * rank + k, Value(c.args[first + k]));
      }
      llvm::Value* bar = llvm::ConstantPointerNull::get(b_.getPtrTy());
      llvm::Value* bar_index = b_.getInt64(0);
      int32_t bar_buffer = -1;
      int64_t bar_extent = 0;
      if (load) {
        auto* b = c.args[1]->as<Load>();
        llvm::Value* index = Value(b->indices[0]);
        bar = ElementPointer(*b->buffer, index);
        bar_index = b_.CreateSExt(index, i64);
        bar_buffer = BufferId(*b->buffer);
        bar_extent = AllocatedElements(*b->buffer);
      }
      b_.CreateCall(Runtime("tmc_cpu_tma", b_.getVoidTy(), {ptr, i32, ptr, ptr, i32, ptr, i32, i32, ptr, i32, i64, i32, i32, i64, i64, i32, i32}),
                    {thread_, b_.getInt32(load ? TMC_CPU_TMA_LOAD : TMC_CPU_TMA_STORE),
                     ElementPointer(*tile->buffer, Value(tile->indices[0])), buffers_.at(&map),
                     b_.getInt32(static_cast<uint32_t>(rank)), geometry,
                     b_.getInt32(static_cast<uint32_t>(ScalarBytes(map.elem))),
                     b_.getInt32(static_cast<uint32_t>(map.tma_swizzle)), bar,
                     b_.getInt32(static_cast<uint32_t>(BufferId(*tile->buffer))), HostSharedOffset(buffers_.at(tile->buffer.get())),
                     b_.getInt32(static_cast<uint32_t>(BufferId(map))), b_.getInt32(static_cast<uint32_t>(bar_buffer)), bar_index,
                     b_.getInt64(static_cast<uint64_t>(bar_extent)), multicast ? Value(c.args[2]) : b_.getInt32(static_cast<uint32_t>(-1)),
                     b_.getInt32(static_cast<uint32_t>(Site()))});
      return b_.getInt32(0);
    }
    llvm::Value* smem = b_.CreatePtrToInt(Address(*tile->buffer, tile->indices), i32);
    llvm::Value* desc = b_.CreatePtrToInt(buffers_.at(&map), i64);
    std::vector<llvm::Value*> operands;
    std::string constraints, coords;
    auto add = [&](llvm::Value* v, const char* constraint) {
      constraints += (constraints.empty() ? "" : ",") + std::string(constraint);
      operands.push_back(v);
      return fmt::format("${}", operands.size() - 1);
    };
    std::string map_ref = add(desc, "l");
    for (size_t k = rank; k-- > 0;) coords += (coords.empty() ? "" : ", ") + add(Value(c.args[first + k]), "r");
    std::string shared = add(smem, "r");
    std::string text;
    if (load) {
      auto* b = c.args[1]->as<Load>();
      std::string bar = add(b_.CreatePtrToInt(Address(*b->buffer, b->indices), i32), "r");
      // Multicast: the box lands at the tile's offset, and completes on the
      // barrier's, in each block of the cluster whose bit the mask sets.
      std::string mask = multicast ? add(b_.CreateTrunc(Value(c.args[2]), b_.getInt16Ty()), "h") : "";
      text = fmt::format("cp.async.bulk.tensor.{}d.shared::cluster.global.mbarrier::complete_tx::bytes{} [{}], [{}, {{{}}}], [{}]{};",
                         rank, multicast ? ".multicast::cluster" : "", shared, map_ref, coords, bar,
                         multicast ? ", " + mask : "");
    } else {
      text = fmt::format("cp.async.bulk.tensor.{}d.global.shared::cta.bulk_group [{}, {{{}}}], [{}];", rank, map_ref,
                         coords, shared);
    }
    std::vector<llvm::Type*> types;
    for (llvm::Value* v : operands) types.push_back(v->getType());
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), types, false);
    b_.CreateCall(type, llvm::InlineAsm::get(type, text, constraints + ",~{memory}", /*hasSideEffects=*/true), operands);
    return b_.getInt32(0);
  }

  // cp.async.bulk.commit_group / wait_group.read N for tma_store; on the
  // host, the end of the stores' reads of shared memory.
  llvm::Value* TmaStoreSync(int op, int64_t pending, const std::string& text) {
    if (o_.host) {
      llvm::Type* i32 = b_.getInt32Ty();
      b_.CreateCall(Runtime("tmc_cpu_tma_store_sync", b_.getVoidTy(), {b_.getPtrTy(), i32, i32}),
                    {thread_, b_.getInt32(static_cast<uint32_t>(op)), b_.getInt32(static_cast<uint32_t>(pending))});
      return b_.getInt32(0);
    }
    return InlinePtx(text.c_str());
  }

  // One PTX statement with no operands (fence.proxy.async, wgmma.fence,
  // wgmma.commit_group); nothing on the host, whose executor has one proxy
  // and runs wgmma at once.
  llvm::Value* InlinePtx(const char* text) {
    if (o_.host) return b_.getInt32(0);
    CallAsm(llvm::FunctionType::get(b_.getVoidTy(), false), text, "~{memory}", {});
    return b_.getInt32(0);
  }

  // Inline PTX with side effects. A `.sync.aligned` instruction, which the
  // whole warp or warpgroup executes together (wgmma and its fence, commit
  // and wait, setmaxnreg), is a convergent call, which LLVM does not move
  // across control flow: SimplifyCFG hoisted the wgmma_fence that begins
  // both branches of an if above it and sank their commits below, leaving
  // the fence, the wgmma and the commit in three blocks, and ptxas then
  // serializes them with a warpgroup arrive of its own (C7519).
  llvm::CallInst* CallAsm(llvm::FunctionType* type, const std::string& text, const std::string& constraints,
                          llvm::ArrayRef<llvm::Value*> operands) {
    llvm::CallInst* call = b_.CreateCall(type, llvm::InlineAsm::get(type, text, constraints, /*hasSideEffects=*/true), operands);
    if (text.find(".aligned") != std::string::npos) call->addFnAttr(llvm::Attribute::Convergent);
    return call;
  }

  // wgmma.fence, wgmma.commit_group, wgmma.wait_group N. The accumulators
  // of the wgmma calls that the fence or wait concerns
  // (ir/wgmma_sync_registers.h) pass through it ("+f"), and so do their A
  // operands in registers ("+r", b32 pairs), so that no write of them is
  // scheduled between the fence and a wgmma, and no read before the wait
  // (CUTLASS's warpgroup_fence_operand before warpgroup_arrive and after
  // warpgroup_wait). On the host: the executor's warp rendezvous and, for
  // the wait, the race check of the reads of the groups it completes.
  llvm::Value* WgmmaSync(const Call& c, int op, int64_t pending, const std::string& text) {
    if (o_.host) {
      llvm::Type* i32 = b_.getInt32Ty();
      b_.CreateCall(Runtime("tmc_cpu_wgmma_sync", b_.getVoidTy(), {b_.getPtrTy(), i32, i32, i32}),
                    {thread_, b_.getInt32(static_cast<uint32_t>(op)), b_.getInt32(static_cast<uint32_t>(pending)),
                     b_.getInt32(static_cast<uint32_t>(Site()))});
      return b_.getInt32(0);
    }
    if (op == TMC_CPU_WGMMA_COMMIT) return InlinePtx(text.c_str());
    auto it = wgmma_sync_registers_.find(&c);
    static const std::vector<const Buffer*> kNone;
    const std::vector<const Buffer*>& registers = it == wgmma_sync_registers_.end() ? kNone : it->second;
    if (op == TMC_CPU_WGMMA_FENCE) {
      PassWgmmaRegistersThrough(registers, "");
      return InlinePtx(text.c_str());
    }
    PassWgmmaRegistersThrough(registers, text);
    return b_.getInt32(0);
  }

  // An inline asm `text` (may be empty) that takes the wgmma registers
  // `registers` in and out (accumulators "+f", A operands "+r").
  void PassWgmmaRegistersThrough(const std::vector<const Buffer*>& registers, const std::string& text) {
    std::vector<llvm::Value*> slots;
    std::vector<std::pair<const Buffer*, uint64_t>> halves;  // A operands: f16/bf16 pairs, as the b32 wgmma reads
    for (const Buffer* acc : registers) {
      auto it = buffers_.find(acc);
      if (it == buffers_.end()) continue;  // declared further on
      auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(it->second);
      uint64_t count = alloca ? alloca->getAllocatedType()->getArrayNumElements() : 0;
      if (acc->elem != ScalarKind::F32) {
        for (uint64_t k = 0; k + 1 < count; k += 2) halves.emplace_back(acc, k);
        continue;
      }
      for (uint64_t k = 0; k < count; ++k) slots.push_back(RegisterSlot(*acc, b_.getInt32(0), static_cast<int64_t>(k)));
    }
    if (slots.empty() && halves.empty() && text.empty()) return;
    if (halves.empty()) return AsmOnRegisters(text, slots, {}, "");
    // The A registers pass as b32 pairs ("+r"), so that their conversion
    // and packing stay before the fence (ptxas would inject a warpgroup
    // arrive otherwise); the f32 ones after them.
    std::string constraints, body;
    std::vector<llvm::Type*> types;
    std::vector<llvm::Value*> operands;
    size_t n = halves.size() + slots.size();
    for (size_t i = 0; i < n; ++i) constraints += i < halves.size() ? "=r," : "=f,";
    for (size_t i = 0; i < n; ++i) constraints += fmt::format("{},", i);
    for (const auto& [buf, k] : halves) {
      operands.push_back(b_.CreateBitCast(HalfPair(*buf, b_.getInt32(0), static_cast<int64_t>(k)), b_.getInt32Ty()));
      types.push_back(b_.getInt32Ty());
    }
    for (llvm::Value* s : slots) {
      operands.push_back(LoadSlot(b_.getFloatTy(), s));
      types.push_back(b_.getFloatTy());
    }
    auto* result = llvm::StructType::get(ctx_, types);
    auto* type = llvm::FunctionType::get(n == 1 ? types[0] : static_cast<llvm::Type*>(result), types, false);
    llvm::Value* r = CallAsm(type, text, constraints + "~{memory}", operands);
    auto out = [&](size_t i) { return n == 1 ? r : b_.CreateExtractValue(r, static_cast<unsigned>(i)); };
    for (size_t i = 0; i < halves.size(); ++i) {
      const Buffer& buf = *halves[i].first;
      llvm::Value* pair = b_.CreateBitCast(out(i), llvm::FixedVectorType::get(Ty(buf.elem), 2));
      for (unsigned e = 0; e < 2; ++e)
        b_.CreateStore(b_.CreateExtractElement(pair, e),
                       RegisterSlot(buf, b_.getInt32(0), static_cast<int64_t>(halves[i].second + e)));
    }
    for (size_t i = 0; i < slots.size(); ++i) b_.CreateStore(out(halves.size() + i), slots[i]);
  }

  // Inline PTX (side effects, a memory clobber) whose first operands are
  // the f32 registers at `slots`, read and written in place (outputs tied
  // to the inputs: "=f" and "0", "1", ...), then the inputs `extra` with
  // `extra_constraints` ("l,l,r").
  void AsmOnRegisters(const std::string& text, const std::vector<llvm::Value*>& slots,
                      const std::vector<llvm::Value*>& extra, const std::string& extra_constraints) {
    std::string constraints;
    std::vector<llvm::Type*> params(slots.size(), b_.getFloatTy());
    std::vector<llvm::Value*> operands;
    for (size_t i = 0; i < slots.size(); ++i) constraints += "=f,";
    for (size_t i = 0; i < slots.size(); ++i) {
      constraints += fmt::format("{},", i);
      operands.push_back(b_.CreateLoad(b_.getFloatTy(), slots[i]));
    }
    if (!extra.empty()) constraints += extra_constraints + ",";
    constraints += "~{memory}";
    llvm::Type* result = slots.empty()       ? static_cast<llvm::Type*>(b_.getVoidTy())
                         : slots.size() == 1 ? static_cast<llvm::Type*>(b_.getFloatTy())
                                             : llvm::StructType::get(ctx_, params);
    for (llvm::Value* v : extra) {
      params.push_back(v->getType());
      operands.push_back(v);
    }
    auto* type = llvm::FunctionType::get(result, params, false);
    llvm::Value* r = CallAsm(type, text, constraints, operands);
    for (size_t i = 0; i < slots.size(); ++i)
      b_.CreateStore(slots.size() == 1 ? r : b_.CreateExtractValue(r, static_cast<unsigned>(i)), slots[i]);
  }

  // Operands that are Loads standing for an address (copy source and
  // destination, a row of ldmatrix, a tensor passed to a function): not
  // read as values, which would be a false read under the race check.
  static bool IsAddressOperand(const Call& c, size_t i) {
    switch (c.intrinsic) {
      case Intrinsic::CpAsync: return i < 2;
      case Intrinsic::LdMatrix: return i == 0;
      case Intrinsic::Wgmma: return (i == 1 && c.buffers.size() == 1) || i == 2;  // A's register when in registers
      case Intrinsic::MbarrierInit:
      case Intrinsic::MbarrierArrive:
      case Intrinsic::MbarrierArriveCluster:
      case Intrinsic::MbarrierArriveExpectTx:
      case Intrinsic::MbarrierWait: return i == 0;
      case Intrinsic::TmaLoad:
      case Intrinsic::TmaLoadMulticast: return i <= 1;
      case Intrinsic::TmaStore: return i == 0;
      case Intrinsic::CallFunc: return c.callee->params[i].buffer != nullptr;
      default: return false;
    }
  }

  // ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: `count` 8x8
  // matrices, one row address per lane, into 2 * count registers at the
  // operand's offset (two halves per 32-bit word).
  llvm::Value* LdMatrix(const Call& c) {
    const Buffer& a = *c.buffers[0];
    auto* row = c.args[0]->as<Load>();
    auto count = static_cast<unsigned>(*AsConstInt(c.args[2]));
    llvm::Value* base = FragmentOffset(a, c.args[1], 2 * count, true);
    bool trans = *AsConstInt(c.args[3]) != 0;
    llvm::Value* addr = Address(*row->buffer, row->indices, false, &row->source, row->loc);
    if (o_.host) {
      llvm::Type* p = b_.getPtrTy();
      b_.CreateCall(Runtime("tmc_cpu_ldmatrix", b_.getVoidTy(), {p, p, p, b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty()}),
                    {thread_, RegisterSlot(a, base, 0), addr, b_.getInt32(count), b_.getInt32(trans),
                     b_.getInt32(static_cast<uint32_t>(Site()))});
      return b_.getInt32(0);
    }
    namespace LI = llvm::Intrinsic;
    static const LI::ID kIds[2][3] = {
        {LI::nvvm_ldmatrix_sync_aligned_m8n8_x1_b16, LI::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16,
         LI::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16},
        {LI::nvvm_ldmatrix_sync_aligned_m8n8_x1_trans_b16, LI::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16,
         LI::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16}};
    LI::ID id = kIds[trans ? 1 : 0][count == 1 ? 0 : count == 2 ? 1 : 2];
    llvm::Value* r = b_.CreateCall(LI::getDeclaration(&mod_, id, {addr->getType()}), {addr});
    auto* vt = llvm::FixedVectorType::get(Ty(a.elem), 2);
    for (unsigned k = 0; k < count; ++k) {
      llvm::Value* word = count == 1 ? r : b_.CreateExtractValue(r, k);
      llvm::Value* pair = b_.CreateBitCast(word, vt);
      for (unsigned i = 0; i < 2; ++i)
        b_.CreateStore(b_.CreateExtractElement(pair, b_.getInt32(i)), RegisterSlot(a, base, 2 * k + i));
    }
    return b_.getInt32(0);
  }

  llvm::Value* Shuffle(Intrinsic which, ScalarKind t, llvm::Value* v, llvm::Value* lane) {
    namespace LI = llvm::Intrinsic;
    // clamp: 31 for xor/down/idx (lanes past the warp keep their value), 0 for up.
    uint32_t clamp = which == Intrinsic::ShflUp ? 0 : 0x1f;
    LI::ID id = which == Intrinsic::ShflXor    ? LI::nvvm_shfl_sync_bfly_i32
                : which == Intrinsic::ShflDown ? LI::nvvm_shfl_sync_down_i32
                : which == Intrinsic::ShflUp   ? LI::nvvm_shfl_sync_up_i32
                                               : LI::nvvm_shfl_sync_idx_i32;
    int32_t kind = which == Intrinsic::ShflXor ? 0 : which == Intrinsic::ShflDown ? 1 : which == Intrinsic::ShflUp ? 2 : 3;
    int32_t site = o_.host ? Site() : 0;
    auto shfl32 = [&](llvm::Value* x) -> llvm::Value* {
      if (o_.host)
        return b_.CreateCall(Runtime("tmc_cpu_shfl32", b_.getInt32Ty(),
                                     {b_.getPtrTy(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty()}),
                             {thread_, b_.getInt32(static_cast<uint32_t>(kind)), x, lane, b_.getInt32(static_cast<uint32_t>(site))});
      return b_.CreateCall(llvm::Intrinsic::getDeclaration(&mod_, id), {b_.getInt32(0xffffffffu), x, lane, b_.getInt32(clamp)});
    };
    if (ScalarBits(t) == 32) return b_.CreateBitCast(shfl32(b_.CreateBitCast(v, b_.getInt32Ty())), Ty(t));
    // 64-bit values move as two halves.
    llvm::Value* bits = b_.CreateBitCast(v, b_.getInt64Ty());
    llvm::Value* lo = shfl32(b_.CreateTrunc(bits, b_.getInt32Ty()));
    llvm::Value* hi = shfl32(b_.CreateTrunc(b_.CreateLShr(bits, 32), b_.getInt32Ty()));
    llvm::Value* r = b_.CreateOr(b_.CreateZExt(lo, b_.getInt64Ty()), b_.CreateShl(b_.CreateZExt(hi, b_.getInt64Ty()), 32));
    return b_.CreateBitCast(r, Ty(t));
  }

  llvm::Value* Atomic(const Call* c, const std::vector<llvm::Value*>& args) {
    auto* target = c->args[0]->as<Load>();
    TMC_CHECK(target, "atomic without a target element");
    atomic_access_ = true;  // checked as an atomic update (no race with other atomics)
    llvm::Value* addr = Address(*target->buffer, target->indices, false, &target->source, target->loc);
    atomic_access_ = false;
    ScalarKind t = c->type;
    auto order = llvm::AtomicOrdering::Monotonic;
    if (c->intrinsic == Intrinsic::AtomicCas) {
      // cmpxchg takes integers only: a float compares and swaps its bit
      // pattern (so -0.0 does not match 0.0, and a NaN matches itself).
      llvm::Type* bits = b_.getIntNTy(static_cast<unsigned>(ScalarBits(t)));
      llvm::Value* cmp = b_.CreateBitCast(args[0], bits);
      llvm::Value* val = b_.CreateBitCast(args[1], bits);
      auto* x = b_.CreateAtomicCmpXchg(addr, cmp, val, llvm::MaybeAlign(), order, order);
      return b_.CreateBitCast(b_.CreateExtractValue(x, 0), Ty(t));
    }
    llvm::AtomicRMWInst::BinOp op;
    switch (c->intrinsic) {
      case Intrinsic::AtomicAdd: op = IsFloat(t) ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add; break;
      case Intrinsic::AtomicMin:
        op = IsFloat(t) ? llvm::AtomicRMWInst::FMin : IsSigned(t) ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin;
        break;
      case Intrinsic::AtomicMax:
        op = IsFloat(t) ? llvm::AtomicRMWInst::FMax : IsSigned(t) ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax;
        break;
      default: op = llvm::AtomicRMWInst::Xchg; break;
    }
    return b_.CreateAtomicRMW(op, addr, args[0], llvm::MaybeAlign(), order);
  }

  struct Loop {
    llvm::BasicBlock* next;  // continue target
    llvm::BasicBlock* exit;
  };

  llvm::Module& mod_;
  llvm::LLVMContext& ctx_;
  LocalCse cse_;  // before b_, which refers to it
  CseBuilder b_;
  const LlvmEmitOptions& o_;
  unsigned global_as_, shared_as_;
  llvm::Value* thread_ = nullptr;
  SourceRange cur_loc_;
  bool atomic_access_ = false;  // Address() is called for an atomic's target
  bool in_index_ = false;       // emitting an element offset (IndexValue)
  int64_t register_words_ = 0;  // 32-bit words of the function's register tensors so far
  bool predicate_guards_ = false;     // the function's guarded stores become predicated ones
  llvm::Value* predicate_ = nullptr;  // set while emitting a predicated body: shared reads take it
  llvm::Align access_align_{1};  // of the address FlatAddress returned last
  llvm::Value* last_index_ = nullptr;  // the element offset of that address
  KnownOffsetBits offset_bits_;         // for KnownAlignment
  std::unique_ptr<llvm::DIBuilder> dib_;
  llvm::DISubprogram* sp_ = nullptr;
  std::map<const Buffer*, llvm::Value*> extents_;
  const Function* fn_ = nullptr;
  llvm::Function* f_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::Value* shared_ = nullptr;
  std::map<const ir::Function*, llvm::Function*> functions_;
  std::map<const Var*, llvm::Value*> vars_;
  std::map<const Var*, llvm::AllocaInst*> slots_;
  std::map<const Buffer*, llvm::Value*> buffers_;
  // Register arrays in device code whose accesses so far all had constant
  // indices: their elements, each its own alloca (see ElementSlot).
  struct ScalarizedArray {
    llvm::AllocaInst* array;
    std::vector<llvm::AllocaInst*> elements;  // created on first use
  };
  std::map<const Buffer*, ScalarizedArray> scalarized_;
  std::vector<llvm::AllocaInst*> dead_arrays_;  // re-declared register arrays, erased if unused
  // The registers each wgmma_fence and wgmma_wait of the function being
  // defined passes through (ir/wgmma_sync_registers.h).
  std::unordered_map<const Call*, std::vector<const Buffer*>> wgmma_sync_registers_;
  std::vector<Loop> loops_;
};

}  // namespace

std::unique_ptr<llvm::Module> EmitLlvm(const ir::Module& m, llvm::LLVMContext& ctx, const LlvmEmitOptions& options) {
  auto mod = std::make_unique<llvm::Module>(m.name, ctx);
  if (!options.host) mod->setTargetTriple("nvptx64-nvidia-cuda");
  Emitter e(*mod, options);
  for (const auto& f : m.functions) e.Declare(*f);
  for (const auto& f : m.functions) e.Define(*f);
  e.Finish();
  if (ir::VerifyEach(options.verify)) {
    std::string err;
    llvm::raw_string_ostream os(err);
    TMC_CHECK(!llvm::verifyModule(*mod, &os), "invalid LLVM IR: " + err);
  }
  return mod;
}

}  // namespace tmc::codegen
