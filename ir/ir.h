// The typed IR: independent of ANTLR and of the AST. Expressions and
// statements are immutable nodes shared by pointer; passes build new nodes
// only where something changes (see mutator.h).
//
// Semantics of expressions:
// - Integer arithmetic wraps in the width of its type (two's complement);
//   division truncates toward zero, and x % y has the sign of x. Division
//   by zero is undefined (the frontend rejects it in constants).
// - Operands of a binary node have the node's operand type; comparisons
//   produce bool. There are no implicit conversions: Cast nodes are explicit.
// - Float arithmetic is IEEE in the node's type; no reassociation unless a
//   pass proves it harmless. Evaluation order is left to right; expressions
//   have no side effects except Call nodes of atomics and shuffles.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/scalar_type.h"
#include "support/source_manager.h"
#include "support/task_mapping.h"

namespace tmc::ir {

enum class ExprKind {
#define TMC_IR_EXPR(name) name,
#include "ir/node_kinds.def"
};
enum class StmtKind {
#define TMC_IR_STMT(name) name,
#include "ir/node_kinds.def"
};

/// A variable: a scalar parameter, shape symbol, let binding, loop counter.
struct Var {
  std::string name;
  ScalarKind type = ScalarKind::I32;
  bool is_mutable = false;
  int id = 0;  // unique within a function; printed as name.id when needed
};
using VarPtr = std::shared_ptr<Var>;

enum class MemScope { Global, Shared, Register };
enum class LayoutKind { RowMajor, ColMajor, Strided, Swizzle };

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

/// A tensor in memory: a kernel parameter (global), a shared tile, or a
/// per-thread register array (possibly distributed by a task mapping).
struct Buffer {
  std::string name;
  ScalarKind elem = ScalarKind::F32;
  std::vector<Expr> shape;
  MemScope scope = MemScope::Global;
  LayoutKind layout = LayoutKind::RowMajor;
  std::vector<Expr> layout_args;              // strides, or swizzle (B, M, S)
  std::optional<TaskMapping> distributed_by;  // register tensors `by m`
  bool read_only = false;
  int64_t shared_offset = -1;  // bytes, set by plan-shared-memory
  int64_t align = 0;           // shared tensors: bytes the start must be a multiple of (TMA tiles: 128)
  // A kernel parameter passed as a TMA tensor map (`by tma`): the box its
  // copies move (outermost dimension first) and the swizzle span in bytes
  // (0: none). The lowering sets them from the copies' shared tiles.
  bool tma = false;
  std::vector<int64_t> tma_box;
  int64_t tma_swizzle = 0;
};
using BufferPtr = std::shared_ptr<Buffer>;

enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp {
  Add, Sub, Mul, Div, Mod, Min, Max, Shl, Shr, BitAnd, BitOr, BitXor, And, Or,
  Lt, Le, Gt, Ge, Eq, Ne
};
bool IsComparison(BinaryOp op);
std::string_view Spelling(BinaryOp op);

/// Built-in operations that are not arithmetic.
enum class Intrinsic {
  ThreadIdxX, ThreadIdxY, ThreadIdxZ, BlockIdxX, BlockIdxY, BlockIdxZ,
  BlockDimX, BlockDimY, BlockDimZ, GridDimX, GridDimY, GridDimZ,
  Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Tanh, Erf, Sin, Cos, Floor, Ceil, Sigmoid,
  Abs, Fma, Pow,
  ShflXor, ShflDown, ShflUp, ShflIdx,
  AtomicAdd, AtomicMin, AtomicMax, AtomicExch, AtomicCas,
  CallFunc,  // a device function; Call::callee names it
  // Tensor cores and asynchronous copies (void). Fragments are whole
  // register buffers in Call::buffers, in hardware register order.
  // mma.m16n8k16: buffers {d, a, b, c}; args: each operand's first register
  // (i32) in its buffer.
  MmaM16N8K16,
  // ldmatrix: buffers {x}; args: Load of the lane's row start in shared
  // memory, x's first register, the matrix count (1, 2, 4), trans (0, 1).
  LdMatrix,
  // args: Load of the shared destination, Load of the global source, bytes,
  // and optionally the bytes read (i32, 0..bytes; the rest is zero-filled).
  CpAsync,
  CpAsyncCommit,
  CpAsyncWait,    // args: the number of groups that may stay pending
  // wgmma.mma_async m64nNk16, f32 accumulate (sm_90a): buffers {d}; args:
  // d's first register (i32), Load of A's first element and Load of B's
  // (addresses in shared memory, the descriptors' start), accumulate (bool:
  // false gives d = a * b), N (i32), the constant bits of A's and of B's
  // matrix descriptor (i64: LBO, SBO, swizzle mode), trans-b (i32: 1 when B
  // is MN-major). A is K-major. The elements are A's buffer's. With A in
  // registers: buffers {d, a}, args[1] is a's first register (i32, one
  // m64k16 fragment of wgmma_a) and A's descriptor bits are 0.
  Wgmma,
  WgmmaFence,
  WgmmaCommit,
  WgmmaWait,        // args: the number of groups that may stay pending
  FenceProxyAsync,  // fence.proxy.async.shared::cta
  SetMaxNReg,       // args: the register count (i32), 1 to increase / 0 to decrease (i32); sm_90a
  // mbarriers (sm_90a); args[0] is a Load of the mbarrier (its address).
  MbarrierInit,            // args: the barrier, the arrival count (i32)
  MbarrierArrive,          // args: the barrier
  MbarrierArriveExpectTx,  // args: the barrier, transaction bytes (i32)
  MbarrierWait,            // args: the barrier, the phase parity (i32): waits until that phase completed
  // Thread-block clusters (sm_90): an arrival on the mbarrier at the same
  // shared offset in block `rank` of the cluster (args: the barrier, the
  // rank (i32)); the cluster-wide barrier (no args).
  MbarrierArriveCluster,
  ClusterSync,
  // TMA (sm_90): buffers {the tensor-map parameter}; the box is its
  // tma_box. TmaLoad args: Load of the shared tile's first element, Load of
  // the mbarrier, then the box origin (i32, one per dimension, outermost
  // first); the copy completes the box's bytes on the mbarrier. TmaStore
  // args: Load of the shared tile's first element, then the origin.
  TmaLoad,
  // A tma_load multicast to the blocks of the cluster whose rank bits are
  // set in a 16-bit mask: args: tile, mbarrier, the mask (i32), then the
  // origin; the box lands at the tile's offset in each, completing its
  // bytes on each one's mbarrier at the barrier's offset.
  TmaLoadMulticast,
  TmaStore,
  TmaStoreCommit,
  TmaStoreWait,  // args: the number of groups whose reads may stay pending
};
/// Hopper's intrinsics: wgmma and its fences (sm_90a), mbarriers, TMA and
/// fence.proxy.async (sm_90 and sm_90a).
bool IsHopperIntrinsic(Intrinsic i);
std::string_view IntrinsicName(Intrinsic i);

struct ExprNode {
  ExprNode(ExprKind k, ScalarKind t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  const ScalarKind type;
  SourceRange loc;
  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

struct IntImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::IntImm;
  IntImm(ScalarKind t, int64_t v) : ExprNode(kKind, t), value(v) {}
  const int64_t value;  // bool: 0 or 1
  static Expr Make(ScalarKind t, int64_t v);
};

struct FloatImm : ExprNode {
  static constexpr ExprKind kKind = ExprKind::FloatImm;
  FloatImm(ScalarKind t, double v) : ExprNode(kKind, t), value(v) {}
  const double value;
  static Expr Make(ScalarKind t, double v);
};

struct VarRef : ExprNode {
  static constexpr ExprKind kKind = ExprKind::VarRef;
  explicit VarRef(VarPtr v) : ExprNode(kKind, v->type), var(std::move(v)) {}
  const VarPtr var;
  static Expr Make(VarPtr v);
};

/// The access as the source wrote it, kept beside a lowered one so that the
/// CPU executor's bounds check can test each index against its own
/// dimension (`X[3, 40]: index 40 of dimension 1`) after flattening or
/// after a distributed tensor became a per-thread array. Empty unless
/// PassContext::keep_source_indices asked for it.
struct SourceAccess {
  BufferPtr buffer;            // the tensor as declared (its shape, its name)
  std::vector<Expr> indices;   // one per dimension of `buffer`
  explicit operator bool() const { return buffer != nullptr; }
};

/// buffer[indices...]; after flattening, exactly one index (the element
/// offset) in the buffer's memory.
struct Load : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  Load(BufferPtr b, std::vector<Expr> i, SourceAccess src)
      : ExprNode(kKind, b->elem), buffer(std::move(b)), indices(std::move(i)), source(std::move(src)) {}
  const BufferPtr buffer;
  const std::vector<Expr> indices;
  const SourceAccess source;
  static Expr Make(BufferPtr b, std::vector<Expr> indices, SourceAccess source = {});
};

struct Unary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Unary;
  Unary(UnaryOp o, Expr a) : ExprNode(kKind, a->type), op(o), operand(std::move(a)) {}
  const UnaryOp op;
  const Expr operand;
  static Expr Make(UnaryOp op, Expr a);
};

struct Binary : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Binary;
  Binary(BinaryOp o, Expr a, Expr b)
      : ExprNode(kKind, IsComparison(o) ? ScalarKind::Bool : a->type), op(o), lhs(std::move(a)), rhs(std::move(b)) {}
  const BinaryOp op;
  const Expr lhs, rhs;
  /// Checks that both operands have one type (an internal invariant).
  static Expr Make(BinaryOp op, Expr a, Expr b);
};

struct Select : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Select(Expr c, Expr a, Expr b)
      : ExprNode(kKind, a->type), cond(std::move(c)), then_value(std::move(a)), else_value(std::move(b)) {}
  const Expr cond, then_value, else_value;
  static Expr Make(Expr c, Expr a, Expr b);
};

struct Cast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Cast(ScalarKind t, Expr a) : ExprNode(kKind, t), operand(std::move(a)) {}
  const Expr operand;
  static Expr Make(ScalarKind t, Expr a);  // returns `a` when it already has type t
};

struct Function;
struct Call : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  Call(ScalarKind t, Intrinsic i, std::vector<Expr> a, const Function* f, std::vector<BufferPtr> b)
      : ExprNode(kKind, t), intrinsic(i), args(std::move(a)), callee(f), buffers(std::move(b)) {}
  const Intrinsic intrinsic;
  const std::vector<Expr> args;  // atomics: args[0] is the Load of the target element
  const Function* callee;         // CallFunc only
  const std::vector<BufferPtr> buffers;  // whole-buffer operands (tensor-core fragments)
  static Expr Make(ScalarKind t, Intrinsic i, std::vector<Expr> args, const Function* callee = nullptr,
                   std::vector<BufferPtr> buffers = {});
  /// True for calls with effects beyond their value (kept by dead-code removal).
  bool HasEffects() const { return intrinsic >= Intrinsic::AtomicAdd; }
};

// ------------------------------------------------------------------ stmts

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  const StmtKind kind;
  SourceRange loc;
  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};

#define TMC_IR_STMT_HEAD(cls) \
  static constexpr StmtKind kKind = StmtKind::cls;

struct Seq : StmtNode {
  TMC_IR_STMT_HEAD(Seq)
  explicit Seq(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  const std::vector<Stmt> stmts;
  static Stmt Make(std::vector<Stmt> s);
};

/// Declares `var` (immutable unless var->is_mutable) with an initial value,
/// visible to the following statements of the enclosing Seq.
struct LetStmt : StmtNode {
  TMC_IR_STMT_HEAD(LetStmt)
  LetStmt(VarPtr v, Expr e) : StmtNode(kKind), var(std::move(v)), value(std::move(e)) {}
  const VarPtr var;
  const Expr value;  // may be null for an uninitialized mutable variable
  static Stmt Make(VarPtr v, Expr e);
};

struct Assign : StmtNode {
  TMC_IR_STMT_HEAD(Assign)
  Assign(VarPtr v, Expr e) : StmtNode(kKind), var(std::move(v)), value(std::move(e)) {}
  const VarPtr var;
  const Expr value;
  static Stmt Make(VarPtr v, Expr e);
};

struct Store : StmtNode {
  TMC_IR_STMT_HEAD(Store)
  Store(BufferPtr b, std::vector<Expr> i, Expr v, SourceAccess src)
      : StmtNode(kKind), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)), source(std::move(src)) {}
  const BufferPtr buffer;
  const std::vector<Expr> indices;
  const Expr value;
  const SourceAccess source;  // see Load::source
  static Stmt Make(BufferPtr b, std::vector<Expr> indices, Expr v, SourceAccess source = {});
};

/// Declares a shared or register buffer for the rest of the enclosing Seq.
struct Alloc : StmtNode {
  TMC_IR_STMT_HEAD(Alloc)
  explicit Alloc(BufferPtr b) : StmtNode(kKind), buffer(std::move(b)) {}
  const BufferPtr buffer;
  static Stmt Make(BufferPtr b);
};

struct IfStmt : StmtNode {
  TMC_IR_STMT_HEAD(IfStmt)
  IfStmt(Expr c, Stmt t, Stmt e) : StmtNode(kKind), cond(std::move(c)), then_body(std::move(t)), else_body(std::move(e)) {}
  const Expr cond;
  const Stmt then_body;
  const Stmt else_body;  // may be null
  static Stmt Make(Expr c, Stmt t, Stmt e = nullptr);
};

/// for var in [begin, end) step `step` (step > 0, or < 0 for downward
/// loops with `end` exclusive); `unroll` asks for full unrolling.
struct For : StmtNode {
  TMC_IR_STMT_HEAD(For)
  For(VarPtr v, Expr b, Expr e, Expr s, bool u, Stmt body)
      : StmtNode(kKind), var(std::move(v)), begin(std::move(b)), end(std::move(e)), step(std::move(s)), unroll(u), body(std::move(body)) {}
  const VarPtr var;
  const Expr begin, end, step;
  const bool unroll;
  const Stmt body;
  static Stmt Make(VarPtr v, Expr begin, Expr end, Expr step, bool unroll, Stmt body);
};

/// for (vars) in mapping on worker { body }: removed by lower-task-mappings.
struct ForMapping : StmtNode {
  TMC_IR_STMT_HEAD(ForMapping)
  ForMapping(std::vector<VarPtr> v, TaskMapping m, Expr w, Stmt b)
      : StmtNode(kKind), vars(std::move(v)), mapping(std::move(m)), worker(std::move(w)), body(std::move(b)) {}
  const std::vector<VarPtr> vars;
  const TaskMapping mapping;
  const Expr worker;
  const Stmt body;
  static Stmt Make(std::vector<VarPtr> vars, TaskMapping m, Expr worker, Stmt body);
};

struct While : StmtNode {
  TMC_IR_STMT_HEAD(While)
  While(Expr c, Stmt b) : StmtNode(kKind), cond(std::move(c)), body(std::move(b)) {}
  const Expr cond;
  const Stmt body;
  static Stmt Make(Expr c, Stmt b);
};

/// break or continue of the innermost loop.
struct Jump : StmtNode {
  TMC_IR_STMT_HEAD(Jump)
  explicit Jump(bool brk) : StmtNode(kKind), is_break(brk) {}
  const bool is_break;
  static Stmt Make(bool is_break);
};

struct Return : StmtNode {
  TMC_IR_STMT_HEAD(Return)
  explicit Return(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  const Expr value;  // may be null
  static Stmt Make(Expr v);
};

/// Barrier of all threads of the block (`sync`).
struct Barrier : StmtNode {
  TMC_IR_STMT_HEAD(Barrier)
  Barrier() : StmtNode(kKind) {}
  static Stmt Make();
};

struct Evaluate : StmtNode {
  TMC_IR_STMT_HEAD(Evaluate)
  explicit Evaluate(Expr e) : StmtNode(kKind), value(std::move(e)) {}
  const Expr value;
  static Stmt Make(Expr e);
};

#undef TMC_IR_STMT_HEAD

// ------------------------------------------------------------------ functions

/// A kernel parameter or device-function parameter: a buffer or a scalar.
struct Param {
  BufferPtr buffer;  // set for tensor parameters
  VarPtr var;        // set for scalar parameters and shape symbols
  bool is_shape_symbol = false;
};

struct Function {
  enum class Kind { Kernel, Device };
  Kind kind = Kind::Kernel;
  std::string name;
  std::vector<Param> params;  // tensors and scalars as written, then shape symbols
  std::optional<ScalarKind> result;  // device functions
  Stmt body;
  std::vector<Expr> grid;            // kernels: grid extents over parameters
  std::vector<int64_t> block;        // kernels: block extents
  std::vector<int64_t> cluster{1, 1, 1};  // kernels: thread-block cluster extents (`cluster(...)`)
  std::vector<std::pair<std::string, int64_t>> ct_values;
  std::string implements;
  std::vector<std::string> outputs;  // the parameters that are the op's results
  std::vector<Expr> launch_conditions;  // bool, over shape symbols: must hold at launch
  int64_t shared_bytes = 0;          // set by plan-shared-memory
  int64_t shared_align = 16;         // bytes, likewise: swizzled tensors start at a whole period
  int global_index_bits = 64;        // set by flatten-buffers: 32 or 64 (PassContext)
  SourceRange loc;
  int next_var_id = 0;
  int64_t Threads() const;
  int64_t ClusterBlocks() const { return cluster[0] * cluster[1] * cluster[2]; }
};

struct Module {
  std::string name;
  std::vector<std::unique_ptr<Function>> functions;
  /// The bodies that passes replaced, with PipelineOptions::keep_replaced:
  /// freed with the module rather than as each pass ends.
  std::vector<Stmt> replaced;
};

/// A fresh variable of `fn`.
VarPtr NewVar(Function& fn, std::string name, ScalarKind type, bool is_mutable = false);

/// Integer constant of the type of `like`.
inline Expr IntLike(const Expr& like, int64_t v) { return IntImm::Make(like->type, v); }
std::optional<int64_t> AsConstInt(const Expr& e);

}  // namespace tmc::ir
