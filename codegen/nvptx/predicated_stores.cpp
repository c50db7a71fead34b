#include "codegen/nvptx/predicated_stores.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/InlineAsm.h>

#include <algorithm>
#include <string>

#include "ir/mutator.h"
#include "ir/predicable.h"

namespace tmc::codegen {
namespace {

// A scalar's PTX access type and register constraint; `bits` is carried
// in a register of `reg` bits (b8 in a 16-bit register).
struct Access {
  std::string type;
  std::string constraint;
  unsigned bits, reg;
};

Access AccessOf(llvm::Type* t) {
  if (t->isFloatTy()) return {"f32", "f", 32, 32};
  if (t->isDoubleTy()) return {"f64", "d", 64, 64};
  // Integers, and f16/bf16 as their bits.
  unsigned bits = t->getPrimitiveSizeInBits();
  unsigned reg = std::max(bits, 16u);
  return {(bits == 8 ? "u" : "b") + std::to_string(bits), reg == 16 ? "h" : reg == 32 ? "r" : "l", bits, reg};
}

// The state space of an address (generic, global or 32-bit shared) and
// its register constraint.
std::pair<const char*, const char*> SpaceOf(llvm::Value* addr) {
  unsigned space = addr->getType()->getPointerAddressSpace();
  if (space == 3) return {".shared", "r"};
  return {space == 1 ? ".global" : "", "l"};
}

// `b` is the predicate-register constraint. A side effect, so that the
// machine scheduler keeps it in order with the other accesses; the memory
// effects say that it touches only what `addr` points to, so that LLVM's
// passes still know what else it leaves alone.
llvm::CallInst* Call(llvm::IRBuilderBase& b, llvm::FunctionType* fn, const std::string& text, const std::string& constraints,
                     llvm::ArrayRef<llvm::Value*> args, llvm::ModRefInfo effect) {
  llvm::CallInst* call = b.CreateCall(fn, llvm::InlineAsm::get(fn, text, constraints, /*hasSideEffects=*/true), args);
  call->setMemoryEffects(llvm::MemoryEffects::argMemOnly(effect));
  call->setDoesNotThrow();
  return call;
}

}  // namespace

int CountPredicableGuards(const ir::Stmt& s) {
  struct Count : ir::Visitor {
    int guards = 0;
    void Visit(const ir::IfStmt* i) override {
      if (!i->else_body && ir::PredicableStores(i->then_body)) ++guards;
      ir::Visitor::Visit(i);
    }
  } count;
  static_cast<ir::Visitor&>(count).Walk(s);
  return count.guards;
}

bool DependsOnArgument(llvm::Value* v) {
  // Through at most 256 values: the index arithmetic of a guard, not the
  // whole function.
  llvm::SmallPtrSet<llvm::Value*, 32> seen;
  llvm::SmallVector<llvm::Value*, 32> work{v};
  while (!work.empty() && seen.size() < 256) {
    llvm::Value* x = work.pop_back_val();
    if (llvm::isa<llvm::Argument>(x)) return true;
    auto* inst = llvm::dyn_cast<llvm::Instruction>(x);
    if (!inst || !seen.insert(x).second) continue;
    for (llvm::Value* op : inst->operands()) work.push_back(op);
  }
  return false;
}

void EmitPredicatedStore(llvm::IRBuilderBase& b, llvm::Value* pred, llvm::Value* value, llvm::Value* addr) {
  Access a = AccessOf(value->getType());
  if (!value->getType()->isIntegerTy() && a.constraint != "f" && a.constraint != "d")
    value = b.CreateBitCast(value, b.getIntNTy(a.bits));
  if (a.reg != a.bits) value = b.CreateZExt(value, b.getIntNTy(a.reg));
  auto [space, addr_constraint] = SpaceOf(addr);
  auto* fn = llvm::FunctionType::get(b.getVoidTy(), {b.getInt1Ty(), addr->getType(), value->getType()}, false);
  Call(b, fn, std::string("@$0 st") + space + "." + a.type + " [$1], $2;",
       std::string("b,") + addr_constraint + "," + a.constraint, {pred, addr, value}, llvm::ModRefInfo::Mod);
}

llvm::Value* EmitPredicatedLoad(llvm::IRBuilderBase& b, llvm::Value* pred, llvm::Type* type, llvm::Value* addr) {
  Access a = AccessOf(type);
  bool as_bits = !type->isIntegerTy() && a.constraint != "f" && a.constraint != "d";
  llvm::Type* reg = a.constraint == "f" || a.constraint == "d" ? type : b.getIntNTy(a.reg);
  auto [space, addr_constraint] = SpaceOf(addr);
  auto* fn = llvm::FunctionType::get(reg, {b.getInt1Ty(), addr->getType()}, false);
  // Zero first: the value when the predicate is false.
  std::string text = "mov.b" + std::to_string(a.reg) + " $0, 0;\n\t@$1 ld" + space + "." + a.type + " $0, [$2];";
  llvm::Value* v = Call(b, fn, text, "=" + a.constraint + ",b," + addr_constraint, {pred, addr}, llvm::ModRefInfo::Ref);
  if (a.reg != a.bits) v = b.CreateTrunc(v, b.getIntNTy(a.bits));
  return as_bits ? b.CreateBitCast(v, type) : v;
}

}  // namespace tmc::codegen
