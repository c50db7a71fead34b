// Semantic analysis: names, types, shape symbols, compile-time values, task
// mapping types, distributed tensors, ops, kernels and graphs. One Checker
// per module; its member functions live in one check_<construct>.cpp each.
#pragma once

#include <algorithm>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/ast/ast.h"
#include "frontend/check/types.h"
#include "support/mma_layouts.h"
#include "support/diagnostics.h"

namespace tmc::sema {

struct CheckedModule;

/// What a name denotes.
struct Symbol {
  enum class Kind {
    Value,        // let, var, scalar parameter, loop variable, op index
    Tensor,       // tensor parameter, shared/register tensor, op intermediate
    ShapeSymbol,  // a dimension bound from the arguments (M, K, N)
    CtParam,      // compile-time kernel parameter
    Const,        // module-level compile-time constant
    Op,
    Kernel,
    Func,
    Graph,
  };
  Kind kind = Kind::Value;
  std::string name;
  SourceRange decl_range;
  const Type* type = nullptr;
  std::optional<ConstValue> value;  // compile-time value, if any
  bool is_mutable = false;
  bool is_read_only_tensor = false;  // op inputs
  bool used = false;
  bool warn_unused = false;
  bool op_index = false;            // an index variable of an op body
  bool pending = false;             // a module constant not evaluated yet
  std::optional<Dim> extent;        // op index variables: the range they cover
  const ast::Decl* decl = nullptr;  // Op, Kernel, Func, Graph
  const CheckedModule* module = nullptr;
};

class Scope {
 public:
  explicit Scope(Scope* parent) : parent_(parent) {}
  Symbol* Lookup(const std::string& name);
  Symbol* LookupLocal(const std::string& name);
  Symbol* Insert(Symbol symbol);
  Scope* parent() const { return parent_; }
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (auto& [name, sym] : symbols_) fn(*sym);
  }

 private:
  Scope* parent_;
  std::unordered_map<std::string, std::unique_ptr<Symbol>> symbols_;
};

/// The chosen value of each compile-time parameter of a kernel.
struct KernelInstance {
  std::vector<std::pair<std::string, int64_t>> ct_values;
  /// Each compile-time parameter's candidate values (`in [...]`), in
  /// declaration order; empty for a parameter without a list.
  std::vector<std::pair<std::string, std::vector<int64_t>>> ct_candidates;
  /// The parameters that are the implemented op's results (its outputs).
  std::vector<std::string> outputs;
  /// `where` constraints over shape symbols (`BC >= C`): checked at
  /// launch, where the candidate whose conditions hold is chosen.
  std::vector<const ast::Expr*> launch_conditions;
  std::vector<Dim> block;
  std::vector<std::string> grid;
  std::vector<int64_t> cluster{1, 1, 1};  // `cluster(...)`: blocks per thread-block cluster
  std::string name;                       // the kernel's
  int64_t ClusterBlocks() const { return cluster[0] * cluster[1] * cluster[2]; }
};

/// A parsed and checked module, with the declarations it exports.
struct CheckedModule {
  std::string name;  // dotted import name, or the file path for the main file
  std::unique_ptr<ast::Module> ast;
  std::unique_ptr<Scope> exports = std::make_unique<Scope>(nullptr);
  std::map<std::string, KernelInstance> kernels;
  /// The compile-time value of every expression that has one, for the
  /// instance checked (kernels with their chosen parameter values).
  std::unordered_map<const ast::Expr*, ConstValue> constants;
  /// The modules this one imports, in import order.
  std::vector<const CheckedModule*> imports;
  bool ok = false;
};

/// A declaration of a name in a module that the current one does not import.
struct ImportHint {
  std::string module;  // dotted: std.nn
  std::string what;    // op, kernel, function, graph, constant
  SourceRange range;   // of the declared name
};

/// Options that affect checking.
struct CheckOptions {
  /// `-D NAME=VALUE`: compile-time parameter values.
  std::map<std::string, int64_t> defines;
  /// When set (`--kernel K`), `defines` apply to this kernel only: the
  /// module's other kernels keep their own values, whatever they accept.
  std::string defines_kernel;
  /// When not empty (tmc lib), `defines` apply to these kernels only: a
  /// library's -D values reach neither the kernels it leaves out nor the
  /// imported modules' kernels.
  std::set<std::string> defines_scope;
  /// Values for the parameters of one kernel (by kernel name), before
  /// `defines`: how --all-candidates instantiates one kernel of a module.
  std::map<std::string, std::map<std::string, int64_t>> kernel_defines;
  /// Where an undeclared name is declared in an importable module (for the
  /// `add 'import std.nn;'` hint); none when unset.
  std::function<std::vector<ImportHint>(const std::string& name)> find_import;
};

/// Resolves an import to a checked module (null after reporting an error).
using ImportResolver = std::function<const CheckedModule*(const ast::Import&)>;

/// Checks `module`. Returns false if any error was reported.
bool CheckModule(CheckedModule& module, TypeContext& types, DiagnosticEngine& diags,
                 const CheckOptions& options, const ImportResolver& resolve_import);

/// Result of checking one expression.
struct ExprInfo {
  const Type* type = nullptr;
  std::optional<ConstValue> value;
  bool untyped_literal = false;  // an unsuffixed literal: adapts to context
  Symbol* lvalue_root = nullptr;  // the variable or tensor written by an assignment
  bool IsError() const { return !type || type->IsError(); }
};

class Checker {
 public:
  Checker(CheckedModule& module, TypeContext& types, DiagnosticEngine& diags,
          const CheckOptions& options, const ImportResolver& resolve_import);
  bool Run();

  // ---- the context a body is checked in
  enum class BodyKind { Module, Kernel, Func, Op, Graph };
  struct LoopInfo {
    std::vector<Symbol*> vars;
    std::optional<TaskMapping> mapping;
  };

 private:
  // check_module.cpp
  void DeclareTopLevel(ast::Decl* decl);
  void CheckConst(ast::ConstDecl* decl);

  // check_type.cpp
  void BindShapeSymbols(const std::vector<ast::Param>& params);
  void DeclareShapeSymbol(const std::string& name, SourceRange range);
  const Type* ResolveType(const ast::TypeSpec& spec, MemScope scope);
  /// A dimension-like extent (`what`: "tensor dimension", a stride, ...).
  std::optional<Dim> ResolveDim(ast::Expr* e, std::string_view what);
  bool CheckSwizzle(const ast::LayoutSpec& l, const Layout& layout);
  void DeclareParams(const std::vector<ast::Param>& params, bool read_only);
  /// The result type of an op or graph; its dimensions must be bound by
  /// the parameters (the error type, after a diagnostic, if not).
  /// `allow_free`: a dimension no parameter binds becomes a shape symbol
  /// (ops); else it is an error (graphs).
  const Type* ResolveResultType(const ast::TypeSpec& result, bool allow_free = false);
  /// The element type of a written type, with type parameters replaced by
  /// `bindings` (or by the ones of the op being checked).
  ScalarKind ElemOf(const ast::TypeSpec& spec, const std::map<std::string, ScalarKind>& bindings) const;
  /// Binds the type parameters of `op` from the types of the values passed
  /// for its parameters (and its result): each must be one floating-point
  /// type. Reports at `where[i]`; false after an error.
  bool BindTypeParams(const ast::OpDecl& op, const std::vector<const ast::TypeSpec*>& specs,
                      const std::vector<const Type*>& types, const std::vector<SourceRange>& where,
                      std::map<std::string, ScalarKind>* bindings);
  /// Reports type parameters used outside the generic op that declares them.
  void CheckTypeNames(const ast::Decl* decl);
  bool SameType(const Type* a, const Type* b) const;

  // check_kernel.cpp
  void CheckKernel(ast::KernelDecl* decl);
  void CheckCtParams(ast::KernelDecl* decl, KernelInstance& instance);
  void CheckLaunch(ast::KernelDecl* decl, KernelInstance& instance);
  void CheckImplements(ast::KernelDecl* decl, KernelInstance& instance);
  void CheckFunc(ast::FuncDecl* decl);

  // check_op.cpp
  void CheckOp(ast::OpDecl* decl);
  ExprInfo CheckOpExpr(ast::Expr* e);

  // check_graph.cpp
  void CheckGraph(ast::GraphDecl* decl);
  ExprInfo CheckGraphExpr(ast::Expr* e);
  /// A graph's scalars are literals (`2.0`, `-1`) and names (scalar
  /// parameters, lets of literals); anything else is reported.
  bool CheckGraphScalar(const ast::Expr* e);
  /// Set while a graph's statements are checked (not its types, whose
  /// dimensions are scalar arithmetic: `f32[M, 2 * N]`).
  bool graph_values_ = false;
  ExprInfo CheckOpCall(ast::CallExpr* call, const Symbol& op);

  // check_stmt.cpp
  void CheckBlock(ast::BlockStmt* block, bool new_scope = true);
  void CheckStmt(ast::Stmt* stmt);
  void CheckFor(ast::ForStmt* stmt);
  void CheckAssign(ast::AssignStmt* stmt);
  void CheckLocalTensor(ast::Stmt* stmt, const ast::Ident& name, const ast::TypeSpec& spec,
                        ast::Expr* by, MemScope scope);

  // check_expr.cpp
 public:
  ExprInfo CheckExpr(ast::Expr* e);
  /// Checks `e` and converts it implicitly to `to`; diagnoses narrowing.
  ExprInfo CheckConverted(ast::Expr* e, ScalarKind to, std::string_view what);
  bool Convertible(const ExprInfo& info, ScalarKind to, SourceRange range, std::string_view what);
  std::optional<int64_t> EvalInt(ast::Expr* e, std::string_view what);
  const Type* ScalarType(ScalarKind k) const { return types_.Scalar(k); }
  static bool IsTmaMarker(const ast::Expr* by);  // `by tma` of a kernel parameter (check_tma.cpp)

 private:
  ExprInfo CheckName(ast::NameExpr* e);
  /// The checked base and indices of `t[i, ...]`, when `t` is a tensor of
  /// that rank and every index an integer (otherwise reported).
  struct IndexOperands {
    ExprInfo base;
    std::vector<ExprInfo> indices;
    std::string name;
    bool is_view = false;  // fewer indices than dimensions: a view
  };
  std::optional<IndexOperands> CheckIndexOperands(ast::IndexExpr* e);
  ExprInfo CheckIndex(ast::IndexExpr* e);
  ExprInfo CheckMember(ast::MemberExpr* e);
  ExprInfo CheckUnary(ast::UnaryExpr* e);
  ExprInfo CheckBinary(ast::BinaryExpr* e);
  ExprInfo CheckTernary(ast::TernaryExpr* e);
  ExprInfo CheckCast(ast::CastExpr* e);
  ExprInfo CheckLiteral(ast::Expr* e);
  ExprInfo Arith(ast::BinaryExpr* e, const ExprInfo& l, const ExprInfo& r);
  ExprInfo FoldedInt(ast::Expr* e, ExprInfo out, ExactInt z, ScalarKind type);
  std::optional<ScalarKind> CommonType(const ExprInfo& l, const ExprInfo& r);
  ExprInfo Scalar(ScalarKind k) { return ExprInfo{types_.Scalar(k), {}, false, nullptr}; }
  ExprInfo ErrorInfo() { return ExprInfo{types_.Error(), {}, false, nullptr}; }
  void ReportUndeclared(const std::string& name, SourceRange range);

  // check_builtin.cpp
  ExprInfo CheckCall(ast::CallExpr* e);
  std::optional<ExprInfo> CheckBuiltinCall(ast::CallExpr* e);
  ExprInfo CheckMappingPrimitive(ast::CallExpr* e, MappingAtom::Kind kind);
  ExprInfo CheckFuncCall(ast::CallExpr* e, Symbol& func);
  ExprInfo CheckTensorCoreCall(ast::CallExpr* e, const std::string& name);
  ExprInfo CheckWgmmaCall(ast::CallExpr* e, const std::string& name);  // check_wgmma.cpp
  ExprInfo CheckMbarrierCall(ast::CallExpr* e, const std::string& name);  // check_mbarrier.cpp
  const ast::Expr* mbarrier_operand_ = nullptr;  // the barrier operand of the mbarrier built-in being checked
  /// `bar[i]`, argument `index` (0-based) of `name`: one element of a shared
  /// mbarrier array (reported otherwise).
  bool CheckMbarrierOperand(ast::Expr* arg, size_t index, const std::string& name);
  ExprInfo CheckTmaCall(ast::CallExpr* e, const std::string& name);  // check_tma.cpp
  ExprInfo CheckClusterCall(ast::CallExpr* e, const std::string& name);  // check_cluster.cpp
  // A block rank in the cluster (`mask`: a multicast mask of ranks), an
  // argument of mbarrier_arrive or tma_load.
  bool CheckClusterOperand(ast::Expr* arg, bool mask);
  /// A TMA copy's tile origin `A[c0, ...]` (argument `index`); A's symbol.
  Symbol* CheckTmaOrigin(ast::Expr* arg, size_t index, const std::string& name);
  /// A TMA copy's shared tile for the tensor map of `map` (argument
  /// `index`): records the box it moves, or reports one that differs.
  bool CheckTmaTile(ast::CallExpr* call, size_t index, const Symbol& map, const std::string& name);
  const ast::Expr* tma_operand_ = nullptr;  // the origin operand of the TMA built-in being checked
  struct TmaBox {
    std::vector<int64_t> box;
    int64_t swizzle = 0;  // bytes: 0, 32, 64, 128
    SourceRange at;
  };
  std::map<const Symbol*, TmaBox> tma_boxes_;  // of the kernel being checked
  const KernelInstance* kernel_instance_ = nullptr;  // the kernel being checked (its outputs)
  // What a fragment operand of mma or ldmatrix must be made of.
  struct FragmentKind {
    TaskMapping layout;             // one hardware fragment (ldmatrix: its plain layout)
    const char* role;               // "A", "C/D", "ldmatrix 8x8"
    std::string elem_names;         // for messages
    std::vector<ScalarKind> elems;  // accepted element types
    int64_t rows, cols;             // of one fragment
    bool ldmatrix;                  // plain or transposed 8x8 matrices
    bool Accepts(ScalarKind k) const { return std::find(elems.begin(), elems.end(), k) != elems.end(); }
  };
  struct FragmentOperand {
    const Type* type;
    int64_t rows, cols;  // of the operand (the tile's, for tile(...))
    std::vector<FragmentPiece> pieces;
  };
  std::optional<FragmentOperand> CheckFragmentOperand(ast::CallExpr* call, size_t i, const FragmentKind& kind);
  const Type* DistributeBy(const Type* t, ast::Expr* by);
  void WarnInvariantReductionTerms(ast::ReduceExpr* r);
  ExprInfo CheckOpFuncCall(ast::CallExpr* e, Symbol& func);
  void CheckTypeCtParam(ast::KernelDecl* decl, ast::CtParam& p, KernelInstance& instance);
  std::optional<int64_t> ChooseCtValue(ast::KernelDecl* decl, ast::CtParam& p, bool is_type,
                                       const std::function<std::optional<int64_t>(ast::Expr*)>& eval,
                                       KernelInstance& instance);
  bool IsLaunchCondition(const ast::Expr* e);
  void ResolveParamMappings(ast::FuncDecl* decl);
  std::set<const ast::Expr*> resolved_by_;  // function parameters' `by` mappings, checked once

  // ---- state
  void PushScope() { scopes_.push_back(std::make_unique<Scope>(scope_)); scope_ = scopes_.back().get(); }
  void PopScope();
  Symbol* Declare(Symbol symbol);

  CheckedModule& module_;
  TypeContext& types_;
  DiagnosticEngine& diags_;
  const CheckOptions& options_;
  const ImportResolver& resolve_import_;

  Scope* scope_ = nullptr;
  std::vector<std::unique_ptr<Scope>> scopes_;
  BodyKind body_ = BodyKind::Module;
  const ast::Decl* current_decl_ = nullptr;
  const Type* func_result_ = nullptr;
  std::vector<LoopInfo> loops_;
  std::vector<Dim> block_dims_;  // of the kernel being checked, when constant
  std::map<std::string, ScalarKind> type_bindings_;  // of the generic op being checked
  bool in_reduction_extent_ = false;
  bool in_param_dims_ = false;  // resolving the dimensions of a parameter or result type
};

}  // namespace tmc::sema
