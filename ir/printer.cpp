// One statement per line, nested bodies indented by two spaces; binary
// expressions parenthesized; immediates of types other than i32, f32 and
// bool carry their type as a suffix (7i64, 1.5f16).
#include "ir/printer.h"

#include <fmt/format.h>

namespace tmc::ir {
namespace {

std::string Join(const std::vector<Expr>& es) {
  std::string s;
  for (const Expr& e : es) s += (s.empty() ? "" : ", ") + Print(e);
  return s;
}

std::string FloatText(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

std::string ScopeName(MemScope s) {
  switch (s) {
    case MemScope::Global: return "global";
    case MemScope::Shared: return "shared";
    case MemScope::Register: return "register";
  }
  return "?";
}

}  // namespace

std::string PrintBufferType(const Buffer& b) {
  std::string s = fmt::format("{} {}[{}]", ScopeName(b.scope), ScalarName(b.elem), Join(b.shape));
  switch (b.layout) {
    case LayoutKind::RowMajor: break;
    case LayoutKind::ColMajor: s += " col_major"; break;
    case LayoutKind::Strided: s += " strided(" + Join(b.layout_args) + ")"; break;
    case LayoutKind::Swizzle: s += " swizzle(" + Join(b.layout_args) + ")"; break;
  }
  if (b.distributed_by) s += " by " + b.distributed_by->ToString();
  if (b.shared_offset >= 0) s += fmt::format(" @{}", b.shared_offset);
  return s;
}

std::string Print(const Expr& e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case ExprKind::IntImm: {
      int64_t v = e->as<IntImm>()->value;
      if (e->type == ScalarKind::Bool) return v ? "true" : "false";
      if (e->type == ScalarKind::I32) return std::to_string(v);
      // A u64 immediate holds its value's bits, which may exceed 2^63.
      std::string digits = e->type == ScalarKind::U64 ? std::to_string(static_cast<uint64_t>(v)) : std::to_string(v);
      return digits + std::string(ScalarName(e->type));
    }
    case ExprKind::FloatImm: {
      std::string s = FloatText(e->as<FloatImm>()->value);
      return e->type == ScalarKind::F32 ? s : s + std::string(ScalarName(e->type));
    }
    case ExprKind::VarRef: return e->as<VarRef>()->var->name;
    case ExprKind::Load: {
      auto* l = e->as<Load>();
      return l->buffer->name + "[" + Join(l->indices) + "]";
    }
    case ExprKind::Unary: {
      auto* u = e->as<Unary>();
      const char* op = u->op == UnaryOp::Neg ? "-" : u->op == UnaryOp::Not ? "!" : "~";
      return std::string("(") + op + Print(u->operand) + ")";
    }
    case ExprKind::Binary: {
      auto* b = e->as<Binary>();
      if (b->op == BinaryOp::Min || b->op == BinaryOp::Max)
        return fmt::format("{}({}, {})", Spelling(b->op), Print(b->lhs), Print(b->rhs));
      return fmt::format("({} {} {})", Print(b->lhs), Spelling(b->op), Print(b->rhs));
    }
    case ExprKind::Select: {
      auto* s = e->as<Select>();
      return fmt::format("select({}, {}, {})", Print(s->cond), Print(s->then_value), Print(s->else_value));
    }
    case ExprKind::Cast: return fmt::format("{}({})", ScalarName(e->type), Print(e->as<Cast>()->operand));
    case ExprKind::Call: {
      auto* c = e->as<Call>();
      if (c->args.empty() && c->intrinsic <= Intrinsic::GridDimZ) return std::string(IntrinsicName(c->intrinsic));
      std::string name = c->intrinsic == Intrinsic::CallFunc ? "call " + c->callee->name
                                                             : std::string(IntrinsicName(c->intrinsic));
      std::string args;
      for (const BufferPtr& b : c->buffers) args += (args.empty() ? "" : ", ") + b->name;
      std::string rest = Join(c->args);
      if (!rest.empty()) args += (args.empty() ? "" : ", ") + rest;
      return name + "(" + args + ")";
    }
  }
  return "?";
}

std::string Print(const Stmt& s, int indent) {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  if (!s) return "";
  switch (s->kind) {
    case StmtKind::Seq: {
      std::string out;
      for (const Stmt& st : s->as<Seq>()->stmts) out += Print(st, indent);
      return out;
    }
    case StmtKind::LetStmt: {
      auto* l = s->as<LetStmt>();
      std::string kw = l->var->is_mutable ? "var" : "let";
      if (!l->value) return fmt::format("{}{} {}: {}\n", pad, kw, l->var->name, ScalarName(l->var->type));
      return fmt::format("{}{} {}: {} = {}\n", pad, kw, l->var->name, ScalarName(l->var->type), Print(l->value));
    }
    case StmtKind::Assign: {
      auto* a = s->as<Assign>();
      return fmt::format("{}{} = {}\n", pad, a->var->name, Print(a->value));
    }
    case StmtKind::Store: {
      auto* st = s->as<Store>();
      return fmt::format("{}{}[{}] = {}\n", pad, st->buffer->name, Join(st->indices), Print(st->value));
    }
    case StmtKind::Alloc: {
      auto* a = s->as<Alloc>();
      return fmt::format("{}alloc {}: {}\n", pad, a->buffer->name, PrintBufferType(*a->buffer));
    }
    case StmtKind::IfStmt: {
      auto* i = s->as<IfStmt>();
      std::string out = fmt::format("{}if {} {{\n{}", pad, Print(i->cond), Print(i->then_body, indent + 1));
      if (i->else_body) out += fmt::format("{}}} else {{\n{}", pad, Print(i->else_body, indent + 1));
      return out + pad + "}\n";
    }
    case StmtKind::For: {
      auto* f = s->as<For>();
      std::string step = AsConstInt(f->step) == 1 ? "" : " step " + Print(f->step);
      return fmt::format("{}for {} in [{}, {}){}{} {{\n{}{}}}\n", pad, f->var->name, Print(f->begin),
                         Print(f->end), step, f->unroll ? " unroll" : "", Print(f->body, indent + 1), pad);
    }
    case StmtKind::ForMapping: {
      auto* f = s->as<ForMapping>();
      std::string vars;
      for (const VarPtr& v : f->vars) vars += (vars.empty() ? "" : ", ") + v->name;
      return fmt::format("{}for ({}) in {} on {} {{\n{}{}}}\n", pad, vars, f->mapping.ToString(),
                         Print(f->worker), Print(f->body, indent + 1), pad);
    }
    case StmtKind::While: {
      auto* w = s->as<While>();
      return fmt::format("{}while {} {{\n{}{}}}\n", pad, Print(w->cond), Print(w->body, indent + 1), pad);
    }
    case StmtKind::Jump: return pad + (s->as<Jump>()->is_break ? "break\n" : "continue\n");
    case StmtKind::Return: {
      auto* r = s->as<Return>();
      return pad + (r->value ? "return " + Print(r->value) : "return") + "\n";
    }
    case StmtKind::Barrier: return pad + "sync\n";
    case StmtKind::Evaluate: return pad + Print(s->as<Evaluate>()->value) + "\n";
  }
  return "";
}

std::string Print(const Function& fn) {
  std::string params;
  for (const Param& p : fn.params) {
    params += params.empty() ? "" : ", ";
    if (p.buffer) params += p.buffer->name + ": " + PrintBufferType(*p.buffer);
    else params += p.var->name + ": " + std::string(ScalarName(p.var->type)) + (p.is_shape_symbol ? " shape" : "");
  }
  std::string head = fmt::format("{} {}({})", fn.kind == Function::Kind::Kernel ? "kernel" : "func", fn.name, params);
  if (fn.result) head += " -> " + std::string(ScalarName(*fn.result));
  if (fn.kind == Function::Kind::Kernel) {
    std::string block;
    for (int64_t b : fn.block) block += (block.empty() ? "" : ", ") + std::to_string(b);
    head += fmt::format("\n    grid({}) block({})", Join(fn.grid), block);
    if (!fn.ct_values.empty()) {
      std::string ct;
      for (auto& [n, v] : fn.ct_values) ct += (ct.empty() ? "" : ", ") + n + "=" + CtValueString(v);
      head += " with " + ct;
    }
    if (fn.shared_bytes > 0) head += fmt::format(" shared_bytes({})", fn.shared_bytes);
  }
  return head + " {\n" + Print(fn.body, 1) + "}\n";
}

std::string Print(const Module& m) {
  std::string out;
  for (const auto& f : m.functions) out += (out.empty() ? "" : "\n") + Print(*f);
  return out;
}

}  // namespace tmc::ir
