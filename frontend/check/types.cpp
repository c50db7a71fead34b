// Spelling of semantic types and values.
#include "frontend/check/types.h"

#include <fmt/format.h>

namespace tmc::sema {

std::string Type::ToString() const {
  switch (kind) {
    case TypeKind::Error: return "<error>";
    case TypeKind::Void: return "void";
    case TypeKind::Scalar: return std::string(ScalarName(scalar));
    case TypeKind::Mapping: return mapping ? mapping->TypeString() : "mapping";
    case TypeKind::Range: return unroll ? "unroll range" : "range";
    case TypeKind::Dim3: return "dim3";
    case TypeKind::Tensor: {
      std::string s;
      if (scope == MemScope::Shared) s = "shared ";
      if (scope == MemScope::Register) s = "register ";
      s += std::string(ScalarName(scalar)) + "[";
      for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].ToString();
      s += "]";
      if (distributed_by) s += " by " + distributed_by->ToString();
      return s;
    }
  }
  return "?";
}

TypeContext::TypeContext() {
  Type e;
  error_ = Make(e);
  e.kind = TypeKind::Void;
  void_ = Make(e);
  e.kind = TypeKind::Dim3;
  dim3_ = Make(e);
  for (int k = 0; k <= static_cast<int>(ScalarKind::F64); ++k) {
    Type s;
    s.kind = TypeKind::Scalar;
    s.scalar = static_cast<ScalarKind>(k);
    scalars_.push_back(Make(s));
  }
}

const Type* TypeContext::Make(Type t) {
  storage_.push_back(std::move(t));
  return &storage_.back();
}

std::string ConstValue::ToString() const {
  switch (kind) {
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return fmt::format("{}", f);
    case Kind::Bool: return b ? "true" : "false";
    case Kind::Mapping: return m ? m->ToString() : "mapping";
  }
  return "?";
}

}  // namespace tmc::sema
