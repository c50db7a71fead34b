// proxy-reg-erasure: see proxy_reg_erasure.h.
#include "codegen/nvptx/proxy_reg_erasure.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/CodeGen/MachineFunctionPass.h>
#include <llvm/CodeGen/MachineRegisterInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetInstrInfo.h>
#include <llvm/CodeGen/TargetSubtargetInfo.h>

#include <vector>

namespace tmc::codegen {

namespace {

class ProxyRegErasure : public llvm::MachineFunctionPass {
 public:
  static char ID;
  ProxyRegErasure() : llvm::MachineFunctionPass(ID) {}
  llvm::StringRef getPassName() const override { return "tmc: erase ProxyReg pseudo-instructions"; }
  void getAnalysisUsage(llvm::AnalysisUsage& au) const override {
    au.setPreservesCFG();
    llvm::MachineFunctionPass::getAnalysisUsage(au);
  }

  bool runOnMachineFunction(llvm::MachineFunction& mf) override {
    const llvm::TargetInstrInfo& tii = *mf.getSubtarget().getInstrInfo();
    llvm::SmallVector<llvm::MachineInstr*, 32> proxies;
    for (llvm::MachineBasicBlock& block : mf)
      for (llvm::MachineInstr& mi : block)
        if (IsProxy(tii, mi.getOpcode())) proxies.push_back(&mi);
    llvm::MachineRegisterInfo& regs = mf.getRegInfo();
    for (llvm::MachineInstr* proxy : proxies) {
      // Read now: an earlier proxy's renaming may have changed the source.
      llvm::Register out = proxy->getOperand(0).getReg();
      llvm::Register in = proxy->getOperand(1).getReg();
      proxy->eraseFromParent();
      regs.replaceRegWith(out, in);
    }
    return !proxies.empty();
  }

 private:
  // The ProxyReg opcodes (one per register class) are not in LLVM's
  // installed headers: found by name once per opcode.
  bool IsProxy(const llvm::TargetInstrInfo& tii, unsigned opcode) {
    if (opcode >= known_.size()) known_.resize(opcode + 1, kUnknown);
    if (known_[opcode] == kUnknown) known_[opcode] = tii.getName(opcode).starts_with("ProxyReg") ? kProxy : kOther;
    return known_[opcode] == kProxy;
  }

  enum Kind : unsigned char { kUnknown, kProxy, kOther };
  std::vector<Kind> known_;
};

char ProxyRegErasure::ID = 0;

}  // namespace

llvm::Pass* CreateProxyRegErasure() { return new ProxyRegErasure(); }

llvm::AnalysisID PassBeforeNvptxProxyRegErasure() { return &llvm::PeepholeOptimizerID; }

}  // namespace tmc::codegen
