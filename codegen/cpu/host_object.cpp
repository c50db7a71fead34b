// Ahead-of-time host code: the CPU executor's kernels as an object file.
#include "codegen/cpu/host_object.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include <set>

#include "codegen/cpu/cpu_jit.h"
#include "codegen/nvptx/llvm_emitter.h"

namespace tmc::codegen {
namespace {

// f32 -> bf16 (round to nearest even; NaN stays a quiet NaN). For the
// generic x86-64 CPU, LLVM lowers every such conversion (bf16 arithmetic
// included) to a call of the compiler runtime's __truncsfbf2, which GCC 12's
// libgcc lacks; the JIT never needs it (it targets this machine, which
// converts natively). Each object carries its own weak, hidden copy, so that
// any number of libraries link together and none exports it.
void DefineTruncSfBf2(llvm::Module& m) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Function* f = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getBFloatTy(c), {llvm::Type::getFloatTy(c)}, false),
      llvm::GlobalValue::WeakAnyLinkage, "__truncsfbf2", m);
  if (f->getName() != "__truncsfbf2") {  // the module already declares it: take over that declaration
    llvm::Function* existing = m.getFunction("__truncsfbf2");
    f->eraseFromParent();
    f = existing;
    f->setLinkage(llvm::GlobalValue::WeakAnyLinkage);
  }
  f->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", f));
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* x = f->getArg(0);
  llvm::Value* bits = b.CreateBitCast(x, i32);
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(bits, b.getInt32(0x7fff)), lsb), 16);
  llvm::Value* nan = b.CreateOr(b.CreateLShr(bits, 16), b.getInt32(0x40));
  llvm::Value* r = b.CreateSelect(b.CreateFCmpUNO(x, x), nan, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(r, b.getInt16Ty()), b.getBFloatTy()));
}

}  // namespace

bool CompileHostObject(const ir::Module& m, const std::string& prefix, HostObject* out, std::string* error) {
  InitializeHostTarget();
  llvm::LLVMContext context;
  LlvmEmitOptions options;
  options.host = true;
  options.sites = &out->sites;
  std::unique_ptr<llvm::Module> mod = EmitLlvm(m, context, options);

  // The library runs on machines other than this one: the generic x86-64
  // CPU of the default triple, position-independent (shared libraries).
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, *error);
  if (!target) return false;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Default));
  if (!tm) return *error = "no host target machine for " + triple, false;
  mod->setDataLayout(tm->createDataLayout());
  mod->setTargetTriple(triple);

  // Kernels keep their (prefixed) names; helpers and constants become
  // internal, so that nothing but the entry points can clash at link time.
  std::set<std::string> kernels;
  for (const auto& f : m.functions)
    if (f->kind == ir::Function::Kind::Kernel) kernels.insert(f->name);
  for (llvm::Function& f : mod->functions()) {
    if (f.isDeclaration() || f.getName() == "__truncsfbf2") continue;
    if (kernels.count(f.getName().str())) f.setName(prefix + f.getName().str());
    else f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  for (llvm::GlobalVariable& g : mod->globals())
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
  DefineTruncSfBf2(*mod);

  OptimizeForHost(*mod, tm.get(), 2);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return *error = "the host target cannot write object files", false;
  pm.run(*mod);
  out->object.assign(buffer.begin(), buffer.end());
  return true;
}

}  // namespace tmc::codegen
