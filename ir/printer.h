// A readable text form of the IR (`--emit=ir`, `--print-after=PASS`).
#pragma once

#include <string>

#include "ir/ir.h"

namespace tmc::ir {

std::string Print(const Expr& e);
std::string Print(const Stmt& s, int indent = 0);
std::string Print(const Function& fn);
std::string Print(const Module& m);
std::string PrintBufferType(const Buffer& b);

}  // namespace tmc::ir
