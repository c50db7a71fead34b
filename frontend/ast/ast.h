// The abstract syntax tree of a .tm module: what the user wrote, with source
// ranges, independent of ANTLR. Semantic analysis annotates expressions with
// their types (`Expr::type`); nothing else mutates the tree after parsing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/scalar_type.h"
#include "support/source_manager.h"

namespace tmc::sema {
class Type;
}

namespace tmc::ast {

struct Node {
  virtual ~Node() = default;
  SourceRange range;
};

/// A name with the range of its spelling.
struct Ident {
  std::string name;
  SourceRange range;
};

// ------------------------------------------------------------------ exprs

enum class ExprKind {
#define TMC_AST_EXPR(name) name,
#include "frontend/ast/ast_nodes.def"
};

enum class UnaryOp { Neg, Plus, Not, BitNot };
enum class BinaryOp {
  Mul, Div, Mod, Add, Sub, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne, BitAnd, BitXor, BitOr, And, Or
};
std::string_view Spelling(UnaryOp op);
std::string_view Spelling(BinaryOp op);

// The reducers of a reduction (`sum(k < K) A[i, k]`). sum and prod are
// reducers only (no function has those names); max and min are also the
// functions of two values.
inline bool IsReducer(std::string_view name) { return name == "sum" || name == "prod" || name == "max" || name == "min"; }
inline bool IsOnlyReducer(std::string_view name) { return name == "sum" || name == "prod"; }

struct Expr : Node {
  explicit Expr(ExprKind k) : kind(k) {}
  const ExprKind kind;
  /// Set by semantic analysis.
  const sema::Type* type = nullptr;
};

template <typename T>
T* dyn_cast(Expr* e) {
  return e && e->kind == T::kKind ? static_cast<T*>(e) : nullptr;
}
template <typename T>
const T* dyn_cast(const Expr* e) {
  return e && e->kind == T::kKind ? static_cast<const T*>(e) : nullptr;
}

struct IntLit : Expr {
  static constexpr ExprKind kKind = ExprKind::IntLit;
  IntLit() : Expr(kKind) {}
  uint64_t value = 0;
  std::optional<ScalarKind> suffix;  // explicit type suffix
};

struct FloatLit : Expr {
  static constexpr ExprKind kKind = ExprKind::FloatLit;
  FloatLit() : Expr(kKind) {}
  double value = 0;
  std::string spelling;
  std::optional<ScalarKind> suffix;
};

struct BoolLit : Expr {
  static constexpr ExprKind kKind = ExprKind::BoolLit;
  BoolLit() : Expr(kKind) {}
  bool value = false;
};

struct NameExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Name;
  NameExpr() : Expr(kKind) {}
  std::string name;
};

struct FuncDecl;
struct CallExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Call;
  CallExpr() : Expr(kKind) {}
  Ident callee;
  std::vector<Expr*> args;
  /// Set by semantic analysis for a call of a `func`.
  const FuncDecl* func = nullptr;
  /// Set by semantic analysis when the callee is an element-type parameter
  /// of the kernel (`T(x)`): a conversion to the type it stands for.
  std::optional<ScalarKind> cast_to;
};

struct CastExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Cast;
  CastExpr() : Expr(kKind) {}
  ScalarKind to = ScalarKind::F32;
  Expr* operand = nullptr;
};

struct IndexExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Index;
  IndexExpr() : Expr(kKind) {}
  Expr* base = nullptr;
  std::vector<Expr*> indices;
};

struct MemberExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Member;
  MemberExpr() : Expr(kKind) {}
  Expr* base = nullptr;
  Ident member;
};

struct UnaryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Unary;
  UnaryExpr() : Expr(kKind) {}
  UnaryOp op = UnaryOp::Neg;
  Expr* operand = nullptr;
};

struct BinaryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Binary;
  BinaryExpr() : Expr(kKind) {}
  BinaryOp op = BinaryOp::Add;
  SourceRange op_range;
  Expr* lhs = nullptr;
  Expr* rhs = nullptr;
};

struct TernaryExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Ternary;
  TernaryExpr() : Expr(kKind) {}
  Expr* cond = nullptr;
  Expr* then_value = nullptr;
  Expr* else_value = nullptr;
};

/// `sum(k < K, l < L) body`: a reduction, allowed in op definitions.
struct ReduceExpr : Expr {
  static constexpr ExprKind kKind = ExprKind::Reduce;
  ReduceExpr() : Expr(kKind) {}
  Ident reducer;  // sum, max, min, prod
  struct Var {
    Ident name;
    Expr* extent = nullptr;
  };
  std::vector<Var> vars;
  Expr* body = nullptr;
};

// ------------------------------------------------------------------ types

struct LayoutSpec {
  Ident name;  // row_major, col_major, strided, swizzle
  std::vector<Expr*> args;
  SourceRange range;
};

/// A written type: a scalar, or a tensor `f32[M, K] col_major`.
struct TypeSpec {
  SourceRange range;
  ScalarKind elem = ScalarKind::F32;  // meaningless when `param` is set
  std::optional<Ident> param;         // a type parameter (`T`) instead of a scalar type
  bool is_tensor = false;
  std::vector<Expr*> dims;
  std::optional<LayoutSpec> layout;
};

// ------------------------------------------------------------------ stmts

enum class StmtKind {
#define TMC_AST_STMT(name) name,
#include "frontend/ast/ast_nodes.def"
};

struct Stmt : Node {
  explicit Stmt(StmtKind k) : kind(k) {}
  const StmtKind kind;
};

template <typename T>
T* dyn_cast(Stmt* s) {
  return s && s->kind == T::kKind ? static_cast<T*>(s) : nullptr;
}
template <typename T>
const T* dyn_cast(const Stmt* s) {
  return s && s->kind == T::kKind ? static_cast<const T*>(s) : nullptr;
}

#define TMC_STMT_CLASS(cls, kind_name) \
  static constexpr StmtKind kKind = StmtKind::kind_name; \
  cls() : Stmt(kKind) {}

struct BlockStmt : Stmt {
  TMC_STMT_CLASS(BlockStmt, Block)
  std::vector<Stmt*> stmts;
};

struct LetStmt : Stmt {
  TMC_STMT_CLASS(LetStmt, Let)
  Ident name;
  std::optional<TypeSpec> type;
  Expr* init = nullptr;
};

struct VarStmt : Stmt {
  TMC_STMT_CLASS(VarStmt, Var)
  Ident name;
  std::optional<TypeSpec> type;
  Expr* init = nullptr;  // may be null
};

struct SharedStmt : Stmt {
  TMC_STMT_CLASS(SharedStmt, Shared)
  Ident name;
  TypeSpec type;
};

struct RegisterStmt : Stmt {
  TMC_STMT_CLASS(RegisterStmt, Register)
  Ident name;
  TypeSpec type;
  Expr* by = nullptr;  // the distributing mapping, if any
};

struct IfStmt : Stmt {
  TMC_STMT_CLASS(IfStmt, If)
  Expr* cond = nullptr;
  BlockStmt* then_body = nullptr;
  Stmt* else_body = nullptr;  // BlockStmt, IfStmt or null
};

/// `for i in range(..)`, `for k in unroll(..)`, `for (i, j) in m on w`.
struct ForStmt : Stmt {
  TMC_STMT_CLASS(ForStmt, For)
  std::vector<Ident> vars;
  bool parenthesized = false;
  Expr* iter = nullptr;
  Expr* worker = nullptr;  // the `on` expression
  BlockStmt* body = nullptr;
};

struct WhileStmt : Stmt {
  TMC_STMT_CLASS(WhileStmt, While)
  Expr* cond = nullptr;
  BlockStmt* body = nullptr;
};

struct BreakStmt : Stmt {
  TMC_STMT_CLASS(BreakStmt, Break)
};
struct ContinueStmt : Stmt {
  TMC_STMT_CLASS(ContinueStmt, Continue)
};
struct SyncStmt : Stmt {
  TMC_STMT_CLASS(SyncStmt, Sync)
};

struct ReturnStmt : Stmt {
  TMC_STMT_CLASS(ReturnStmt, Return)
  Expr* value = nullptr;
  std::vector<Expr*> more;  // a graph's further results: `return a, b;`
};

enum class AssignOp { Assign, Add, Sub, Mul, Div, Mod, And, Or, Xor, Shl, Shr };
std::string_view Spelling(AssignOp op);

struct AssignStmt : Stmt {
  TMC_STMT_CLASS(AssignStmt, Assign)
  AssignOp op = AssignOp::Assign;
  SourceRange op_range;
  Expr* target = nullptr;
  Expr* value = nullptr;
};

struct ExprStmt : Stmt {
  TMC_STMT_CLASS(ExprStmt, ExprStmt)
  Expr* expr = nullptr;
};

#undef TMC_STMT_CLASS

// ------------------------------------------------------------------ decls

struct Param {
  Ident name;
  TypeSpec type;
  Expr* by = nullptr;  // functions: a register fragment distributed by this mapping
  bool shared = false; // functions: a tensor in the block's shared memory
};

enum class DeclKind { Const, Op, Kernel, Func, Graph };

struct Decl : Node {
  explicit Decl(DeclKind k) : kind(k) {}
  const DeclKind kind;
  Ident name;
};

template <typename T>
T* dyn_cast(Decl* d) {
  return d && d->kind == T::kKind ? static_cast<T*>(d) : nullptr;
}
template <typename T>
const T* dyn_cast(const Decl* d) {
  return d && d->kind == T::kKind ? static_cast<const T*>(d) : nullptr;
}

struct ConstDecl : Decl {
  static constexpr DeclKind kKind = DeclKind::Const;
  ConstDecl() : Decl(kKind) {}
  std::optional<TypeSpec> type;
  Expr* value = nullptr;
};

/// One statement of an op body: `let t[i] = e;` or `out[i, j] = e;`.
struct OpStmt {
  bool is_let = false;
  Ident name;
  std::vector<Ident> indices;
  Expr* value = nullptr;
  SourceRange range;
};

struct OpDecl : Decl {
  static constexpr DeclKind kKind = DeclKind::Op;
  OpDecl() : Decl(kKind) {}
  std::vector<Ident> type_params;
  std::vector<Param> params;
  TypeSpec result;             // the first (often only) result
  std::vector<Param> results;  // named results; one result is named `out`
  std::vector<OpStmt> body;
};

struct CtParam {
  Ident name;
  TypeSpec type;
  std::vector<Expr*> candidates;
  bool has_candidates = false;
  Expr* default_value = nullptr;
};

struct LaunchClause {
  Ident name;  // grid or block
  std::vector<Expr*> dims;
  SourceRange range;
};

struct KernelDecl : Decl {
  static constexpr DeclKind kKind = DeclKind::Kernel;
  KernelDecl() : Decl(kKind) {}
  std::vector<CtParam> ct_params;
  std::vector<Param> params;
  std::optional<Ident> implements;
  std::vector<Expr*> where;
  std::vector<LaunchClause> launch;
  BlockStmt* body = nullptr;
  /// The body was left out by the parser (an imported module's kernel when
  /// only the main file's kernels are compiled, or another kernel of the
  /// main file when only one is): `body` is an empty block, neither checked
  /// nor lowered.
  bool body_skipped = false;
};

struct FuncDecl : Decl {
  static constexpr DeclKind kKind = DeclKind::Func;
  FuncDecl() : Decl(kKind) {}
  std::vector<Param> params;
  std::optional<TypeSpec> result;
  BlockStmt* body = nullptr;
};

struct GraphDecl : Decl {
  static constexpr DeclKind kKind = DeclKind::Graph;
  GraphDecl() : Decl(kKind) {}
  std::vector<Param> params;
  TypeSpec result;              // one result
  std::vector<Param> results;   // or named results, in order
  BlockStmt* body = nullptr;
};

struct Import {
  std::vector<Ident> path;  // std.nn -> {std, nn}
  SourceRange range;
  std::string Dotted() const;
};

/// One .tm file. Owns every node of its tree.
struct Module {
  uint32_t file_id = 0;
  std::vector<Import> imports;
  std::vector<Decl*> decls;

  template <typename T>
  T* New() {
    auto node = std::make_unique<T>();
    T* raw = node.get();
    nodes_.push_back(std::move(node));
    return raw;
  }

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace tmc::ast
