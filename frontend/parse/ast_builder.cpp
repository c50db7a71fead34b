// A straight walk over the labelled parse-tree contexts. The grammar lists
// the alternatives; each gets one case here.
#include "frontend/parse/ast_builder.h"

#include <algorithm>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <unordered_set>

namespace tmc {
namespace {

using P = grammar::TmParser;
using namespace ast;

class Builder {
 public:
  Builder(uint32_t file_id, DiagnosticEngine& diags, const TokenLocator& locate,
          unsigned max_depth, const std::vector<size_t>& skipped_bodies)
      : diags_(diags), locate_(locate), max_depth_(max_depth), skipped_bodies_(skipped_bodies) {
    module_ = std::make_unique<Module>();
    module_->file_id = file_id;
  }

  std::unique_ptr<Module> Run(P::TranslationUnitContext* tu) {
    for (P::ImportDeclContext* imp : tu->importDecl()) {
      Import i;
      i.range = locate_.Range(imp);
      for (antlr4::tree::TerminalNode* id : imp->qualifiedName()->ID()) i.path.push_back(Id(id));
      module_->imports.push_back(std::move(i));
    }
    for (P::TopDeclContext* d : tu->topDecl()) {
      module_->decls.push_back(TopDecl(d));
      if (too_deep_) return nullptr;
    }
    return std::move(module_);
  }

 private:
  Ident Id(antlr4::tree::TerminalNode* node) {
    SourceRange range = locate_.Range(node->getSymbol());
    return Ident{std::string(locate_.sm.Text(range)), range};
  }

  // A token's text, read from the source: what ANTLR's getText would
  // decode from its UTF-32 copy of the file (through std::wstring_convert),
  // or, for a rule's context, join from its children (through a
  // std::stringstream); the rules it is asked of here have one token.
  std::string Text(antlr4::Token* t) { return std::string(locate_.sm.Text(locate_.Range(t))); }

  template <typename T>
  T* New(antlr4::ParserRuleContext* ctx) {
    T* n = module_->New<T>();
    n->range = locate_.Range(ctx);
    return n;
  }

  Decl* TopDecl(P::TopDeclContext* ctx) {
    if (auto* c = ctx->constDecl()) {
      auto* d = New<ConstDecl>(c);
      d->name = Id(c->ID());
      if (c->type_()) d->type = Type(c->type_());
      d->value = Expr(c->expr());
      return d;
    }
    if (auto* c = ctx->opDecl()) return Op(c);
    if (auto* c = ctx->kernelDecl()) return Kernel(c);
    if (auto* c = ctx->funcDecl()) {
      auto* d = New<FuncDecl>(c);
      d->name = Id(c->ID());
      d->params = Params(c->paramList());
      if (c->type_()) d->result = Type(c->type_());
      d->body = Block(c->block());
      return d;
    }
    auto* c = ctx->graphDecl();
    auto* d = New<GraphDecl>(c);
    d->name = Id(c->ID());
    d->params = Params(c->inputs);
    if (c->results) d->results = Params(c->results);
    else d->result = Type(c->type_());
    d->body = Block(c->block());
    return d;
  }

  std::vector<Param> Params(P::ParamListContext* list) {
    std::vector<Param> out;
    if (!list) return out;
    for (P::ParamContext* p : list->param())
      out.push_back(Param{Id(p->ID()), Type(p->type_()), p->expr() ? Expr(p->expr()) : nullptr, p->SHARED() != nullptr});
    return out;
  }

  std::vector<Ident> Ids(P::IdListContext* list) {
    std::vector<Ident> out;
    if (list)
      for (auto* id : list->ID()) out.push_back(Id(id));
    return out;
  }

  std::vector<ast::Expr*> Exprs(P::ExprListContext* list) {
    std::vector<ast::Expr*> out;
    if (list)  // children: expr (',' expr)*
      for (size_t i = 0; i < list->children.size(); i += 2)
        out.push_back(Expr(static_cast<P::ExprContext*>(list->children[i])));
    return out;
  }

  Decl* Op(P::OpDeclContext* c) {
    auto* d = New<OpDecl>(c);
    d->name = Id(c->ID());
    if (auto* tp = c->typeParams())
      for (auto* id : tp->ID()) d->type_params.push_back(Id(id));
    d->params = Params(c->inputs);
    if (c->results) {
      d->results = Params(c->results);
      d->result = d->results.front().type;
    } else {
      d->result = Type(c->type_());
      d->results.push_back(Param{Ident{"out", d->result.range}, d->result, nullptr});
    }
    for (P::OpStmtContext* s : c->opStmt()) {
      OpStmt st;
      st.range = locate_.Range(s);
      if (auto* let = dynamic_cast<P::OpLetContext*>(s)) {
        st.is_let = true;
        st.name = Id(let->ID());
        st.indices = Ids(let->idList());
        st.value = Expr(let->expr());
      } else {
        auto* out = static_cast<P::OpOutContext*>(s);
        st.name = Id(out->ID());
        st.indices = Ids(out->idList());
        st.value = Expr(out->expr());
      }
      d->body.push_back(st);
    }
    return d;
  }

  // A scalar type as the value of an element-type parameter: a name that
  // the checker resolves to the type (`f16` in `<T: type in [f16, f32]>`).
  ast::Expr* TypeName(P::ScalarTypeContext* c) {
    auto* n = New<NameExpr>(c);
    n->name = Text(c->getStart());
    return n;
  }

  Decl* Kernel(P::KernelDeclContext* c) {
    auto* d = New<KernelDecl>(c);
    d->name = Id(c->ID());
    if (auto* list = c->ctParamList()) {
      for (P::CtParamContext* p : list->ctParam()) {
        CtParam cp;
        cp.name = Id(p->ID());
        cp.type = Type(p->type_());
        cp.has_candidates = p->IN() != nullptr;
        for (P::CtValueContext* v : p->ctValue())
          cp.candidates.push_back(v->scalarType() ? TypeName(v->scalarType()) : Expr(v->expr()));
        if (p->primary()) cp.default_value = Primary(p->primary());
        else if (p->paren()) cp.default_value = Expr(p->paren()->expr());
        if (p->scalarType()) cp.default_value = TypeName(p->scalarType());
        d->ct_params.push_back(std::move(cp));
      }
    }
    d->params = Params(c->paramList());
    for (P::KernelClauseContext* k : c->kernelClause()) {
      if (auto* imp = dynamic_cast<P::ImplementsClauseContext*>(k)) {
        d->implements = Id(imp->ID());
      } else if (auto* w = dynamic_cast<P::WhereClauseContext*>(k)) {
        for (auto* e : w->cond()) d->where.push_back(Cond(e));
      } else {
        auto* l = static_cast<P::LaunchClauseContext*>(k);
        d->launch.push_back(LaunchClause{Id(l->ID()), Exprs(l->exprList()), locate_.Range(l)});
      }
    }
    d->body = Block(c->block());
    d->body_skipped = std::binary_search(skipped_bodies_.begin(), skipped_bodies_.end(),
                                         c->block()->getStart()->getStartIndex());
    return d;
  }

  TypeSpec Type(P::Type_Context* c) {
    TypeSpec t;
    t.range = locate_.Range(c);
    if (c->scalarType()) t.elem = *ParseScalar(Text(c->scalarType()->getStart()));
    else t.param = Id(c->ID());
    t.is_tensor = c->LBRACK() != nullptr;
    t.dims = Exprs(c->exprList());
    if (auto* l = c->layout()) t.layout = LayoutSpec{Id(l->ID()), Exprs(l->exprList()), locate_.Range(l)};
    return t;
  }

  BlockStmt* Block(P::BlockContext* c) {
    auto* b = New<BlockStmt>(c);
    for (P::StmtContext* s : c->stmt()) b->stmts.push_back(Stmt(s));
    return b;
  }

  IfStmt* If(P::IfStatementContext* c) {
    auto* s = New<IfStmt>(c);
    s->cond = Expr(c->expr());
    s->then_body = Block(c->block(0));
    if (c->ifStatement()) s->else_body = If(c->ifStatement());
    else if (c->block().size() > 1) s->else_body = Block(c->block(1));
    return s;
  }

  ast::Stmt* Stmt(P::StmtContext* c) {
    // The first token tells the alternative (Tm.g4's stmt), without a
    // dynamic_cast per alternative tried.
    switch (c->getStart()->getType()) {
      case P::LET: return Let(static_cast<P::LetStmtContext*>(c));
      case P::VAR: return Var(static_cast<P::VarStmtContext*>(c));
      case P::SHARED: return Shared(static_cast<P::SharedStmtContext*>(c));
      case P::REGISTER: return Register(static_cast<P::RegisterStmtContext*>(c));
      case P::IF: return If(static_cast<P::IfStmtContext*>(c)->ifStatement());
      case P::FOR: return For(static_cast<P::ForStmtContext*>(c));
      case P::WHILE: return While(static_cast<P::WhileStmtContext*>(c));
      case P::BREAK: return New<BreakStmt>(c);
      case P::CONTINUE: return New<ContinueStmt>(c);
      case P::SYNC: return New<SyncStmt>(c);
      case P::RETURN: return Return(static_cast<P::ReturnStmtContext*>(c));
      case P::LBRACE: return Block(static_cast<P::BlockStmtContext*>(c)->block());
      default: return ExprOrAssign(static_cast<P::ExprStmtContext*>(c));
    }
  }

  ast::Stmt* Let(P::LetStmtContext* s) {
    auto* n = New<LetStmt>(s);
    n->name = Id(s->ID());
    if (s->type_()) n->type = Type(s->type_());
    n->init = Expr(s->expr());
    return n;
  }

  ast::Stmt* Var(P::VarStmtContext* s) {
    auto* n = New<VarStmt>(s);
    n->name = Id(s->ID());
    if (s->type_()) n->type = Type(s->type_());
    if (s->expr()) n->init = Expr(s->expr());
    return n;
  }

  ast::Stmt* Shared(P::SharedStmtContext* s) {
    auto* n = New<SharedStmt>(s);
    n->name = Id(s->ID());
    n->type = Type(s->type_());
    return n;
  }

  ast::Stmt* Register(P::RegisterStmtContext* s) {
    auto* n = New<RegisterStmt>(s);
    n->name = Id(s->ID());
    n->type = Type(s->type_());
    if (s->expr()) n->by = Expr(s->expr());
    return n;
  }

  ast::Stmt* For(P::ForStmtContext* s) {
    auto* n = New<ForStmt>(s);
    for (auto* id : s->forVars()->ID()) n->vars.push_back(Id(id));
    n->parenthesized = s->forVars()->LPAREN() != nullptr;
    n->iter = Expr(s->expr(0));
    if (s->ON()) n->worker = Expr(s->expr(1));
    n->body = Block(s->block());
    return n;
  }

  ast::Stmt* While(P::WhileStmtContext* s) {
    auto* n = New<WhileStmt>(s);
    n->cond = Expr(s->expr());
    n->body = Block(s->block());
    return n;
  }

  ast::Stmt* Return(P::ReturnStmtContext* s) {
    auto* n = New<ReturnStmt>(s);
    std::vector<P::ExprContext*> values = s->expr();
    for (size_t i = 0; i < values.size(); ++i) {
      if (i == 0) n->value = Expr(values[i]);
      else n->more.push_back(Expr(values[i]));
    }
    return n;
  }

  ast::Stmt* ExprOrAssign(P::ExprStmtContext* s) {
    // children: expr (assignOp expr)? ';'
    auto* target = static_cast<P::ExprContext*>(s->children[0]);
    if (s->children.size() == 4) {
      auto* op = static_cast<P::AssignOpContext*>(s->children[1]);
      auto* n = New<AssignStmt>(s);
      n->target = Expr(target);
      n->value = Expr(static_cast<P::ExprContext*>(s->children[2]));
      n->op_range = locate_.Range(op);
      n->op = AssignOpOf(op->getStart()->getType());
      return n;
    }
    auto* n = New<ExprStmt>(s);
    n->expr = Expr(target);
    return n;
  }

  static AssignOp AssignOpOf(size_t token) {
    switch (token) {
      case P::PLUS_ASSIGN: return AssignOp::Add;
      case P::MINUS_ASSIGN: return AssignOp::Sub;
      case P::STAR_ASSIGN: return AssignOp::Mul;
      case P::SLASH_ASSIGN: return AssignOp::Div;
      case P::PERCENT_ASSIGN: return AssignOp::Mod;
      case P::AMP_ASSIGN: return AssignOp::And;
      case P::PIPE_ASSIGN: return AssignOp::Or;
      case P::CARET_ASSIGN: return AssignOp::Xor;
      case P::SHL_ASSIGN: return AssignOp::Shl;
      case P::SHR_ASSIGN: return AssignOp::Shr;
      default: return AssignOp::Assign;
    }
  }

  static BinaryOp BinaryOpOf(size_t token) {
    switch (token) {
      case P::STAR: return BinaryOp::Mul;
      case P::SLASH: return BinaryOp::Div;
      case P::PERCENT: return BinaryOp::Mod;
      case P::PLUS: return BinaryOp::Add;
      case P::MINUS: return BinaryOp::Sub;
      case P::SHL: return BinaryOp::Shl;
      case P::SHR: return BinaryOp::Shr;
      case P::LT: return BinaryOp::Lt;
      case P::LE: return BinaryOp::Le;
      case P::GT: return BinaryOp::Gt;
      case P::GE: return BinaryOp::Ge;
      case P::EQ: return BinaryOp::Eq;
      case P::NE: return BinaryOp::Ne;
      case P::AMP: return BinaryOp::BitAnd;
      case P::CARET: return BinaryOp::BitXor;
      case P::PIPE: return BinaryOp::BitOr;
      case P::ANDAND: return BinaryOp::And;
      default: return BinaryOp::Or;
    }
  }

  // ---------------------------------------------------------------- expressions
  // The grammar reads an expression flat (Tm.g4): operands separated by
  // binary operators or juxtaposed (a reduction's body), then an optional
  // `? :`. The operands are grouped here by precedence. The parser's depth
  // guard sees nested rules only, so the depth of the tree a flat chain makes
  // ("1 + 1 + ... + 1") is counted here; deeper than the limit, the file is
  // rejected before anything recurses over the tree.

  // An operand, the source it spans (parentheses included: an expression's
  // range starts at its first token, as the source shows it), and what a
  // body after it would attach to.
  struct Spanned {
    Spanned() = default;
    Spanned(ast::Expr* e, SourceRange span) : e(e), span(span) {}
    ast::Expr* e = nullptr;
    SourceRange span;
    // A call at the operand's right edge, with no postfix after it (there
    // may be prefixes before it, the innermost of which is `call_parent`):
    // a juxtaposed body makes it a reduction.
    CallExpr* call = nullptr;
    UnaryExpr* call_parent = nullptr;
    // A reduction with a parenthesized body at the right edge: the
    // operators after it join its body.
    ReduceExpr* open = nullptr;
    SourceLoc open_body;  // where that body's '(' is
    antlr4::Token* first = nullptr;  // the operand's first and last tokens
    antlr4::Token* last = nullptr;
  };

  // One flat expression: operands[i] ops[i] operands[i + 1] ..., where a
  // null operator is a juxtaposition.
  struct Flat {
    std::vector<Spanned> operands;
    std::vector<antlr4::Token*> ops;
  };

  static int Precedence(size_t token) {  // lower binds tighter
    switch (token) {
      case P::STAR: case P::SLASH: case P::PERCENT: return 0;
      case P::PLUS: case P::MINUS: return 1;
      case P::SHL: case P::SHR: return 2;
      case P::LT: case P::LE: case P::GT: case P::GE: return 3;
      case P::EQ: case P::NE: return 4;
      case P::AMP: return 5;
      case P::CARET: return 6;
      case P::PIPE: return 7;
      case P::ANDAND: return 8;
      default: return 9;  // ||
    }
  }

  // Reports nesting deeper than the limit (once) at `at`.
  bool TooDeep(SourceRange at, size_t extra) {
    if (depth_ + extra < max_depth_) return false;
    if (!too_deep_) diags_.Report(SourceRange{at.begin, at.begin}, DiagKind::NestingTooDeep, max_depth_);
    too_deep_ = true;
    return true;
  }

  ast::Expr* Expr(P::ExprContext* c) { return FlatExpr(c, c->op, c->juxt, c->q); }
  ast::Expr* Cond(P::CondContext* c) { return FlatExpr(c, c->op, {}, c->q); }

  // expr and cond: children `operand ((op operand) | juxt)* (? expr : expr|cond)?`.
  ast::Expr* FlatExpr(antlr4::ParserRuleContext* c, const std::vector<antlr4::Token*>& op,
                      const std::vector<P::UnsignedOperandContext*>& juxt, antlr4::Token* q) {
    SourceRange span = locate_.Range(c);
    if (TooDeep(span, 0)) return module_->New<IntLit>();
    ++depth_;
    size_t end = c->children.size() - (q ? 4 : 0);
    Flat flat;
    flat.operands.push_back(Operand(c->children[0]));
    for (size_t i = 1, k = 0, m = 0; i < end;) {
      if (m < juxt.size() && c->children[i] == juxt[m]) {
        flat.ops.push_back(nullptr);
        flat.operands.push_back(Operand(juxt[m++]));
        i += 1;
      } else {
        flat.ops.push_back(op[k++]);
        flat.operands.push_back(Operand(c->children[i + 1]));
        i += 2;
      }
    }
    Spanned then_value, else_value;
    if (q) {
      auto* then_ctx = static_cast<P::ExprContext*>(c->children[end + 1]);
      auto* else_ctx = static_cast<antlr4::ParserRuleContext*>(c->children[end + 3]);
      then_value = {Expr(then_ctx), locate_.Range(then_ctx)};
      else_value.span = locate_.Range(else_ctx);
      else_value.e = else_ctx->getRuleIndex() == P::RuleCond ? Cond(static_cast<P::CondContext*>(else_ctx))
                                                            : Expr(static_cast<P::ExprContext*>(else_ctx));
    }
    ast::Expr* e = Group(flat, 0, then_value, else_value);
    --depth_;
    // The depth of the whole tree (operands nest chains, postfixes and
    // prefixes), measured once for each outermost expression.
    if (depth_ == 0 && !too_deep_ && TreeDepth(e) + 1 >= max_depth_) {
      TooDeep(span, max_depth_);
      return module_->New<IntLit>();
    }
    return e;
  }

  // The depth of an expression tree, without recursion.
  static size_t TreeDepth(ast::Expr* root) {
    size_t deepest = 0;
    std::vector<std::pair<ast::Expr*, size_t>> stack{{root, 1}};
    while (!stack.empty()) {
      auto [e, d] = stack.back();
      stack.pop_back();
      if (!e) continue;
      deepest = std::max(deepest, d);
      auto push = [&, d = d](ast::Expr* c) { stack.push_back({c, d + 1}); };
      if (auto* b = dyn_cast<BinaryExpr>(e)) { push(b->lhs); push(b->rhs); }
      else if (auto* u = dyn_cast<UnaryExpr>(e)) push(u->operand);
      else if (auto* t = dyn_cast<TernaryExpr>(e)) { push(t->cond); push(t->then_value); push(t->else_value); }
      else if (auto* x = dyn_cast<IndexExpr>(e)) { push(x->base); for (ast::Expr* i : x->indices) push(i); }
      else if (auto* m = dyn_cast<MemberExpr>(e)) push(m->base);
      else if (auto* c = dyn_cast<CallExpr>(e)) { for (ast::Expr* a : c->args) push(a); }
      else if (auto* c = dyn_cast<CastExpr>(e)) push(c->operand);
      else if (auto* r = dyn_cast<ReduceExpr>(e)) { for (auto& v : r->vars) push(v.extent); push(r->body); }
    }
    return deepest;
  }

  // Two operands side by side with no operator between them.
  static bool NewLineBetween(const Spanned& a, const Spanned& b) {
    return b.first->getLine() > a.last->getLine();
  }

  // Reports the operator missing between `a` and `b`: a missing ';' when
  // `b` begins a new line (`X[0] = 1.0` then `foo(Y);`), as the parser says.
  void MissingOperator(const Spanned& a, const Spanned& b) {
    if (NewLineBetween(a, b)) {
      diags_.Report(locate_.After(a.last), DiagKind::ExpectedToken, "';'", DescribeToken(b.first, locate_));
      return;
    }
    diags_.Report(locate_.Range(b.first), DiagKind::UnexpectedTokenExpected, DescribeToken(b.first, locate_),
                  "an operator");
  }

  // An operand (grammar: operand, unsignedOperand): `op operand`, or
  // `primary (postfix)*` / `paren (postfix)*`.
  Spanned Operand(antlr4::tree::ParseTree* node) {
    auto* c = static_cast<antlr4::ParserRuleContext*>(node);
    SourceRange span = locate_.Range(c);
    size_t first = c->getStart()->getType();  // no primary begins with a prefix operator
    if (first == P::MINUS || first == P::PLUS || first == P::NOT || first == P::TILDE) {
      auto* n = module_->New<UnaryExpr>();
      switch (first) {
        case P::MINUS: n->op = UnaryOp::Neg; break;
        case P::PLUS: n->op = UnaryOp::Plus; break;
        case P::NOT: n->op = UnaryOp::Not; break;
        default: n->op = UnaryOp::BitNot; break;
      }
      Spanned inner = Operand(c->children[1]);
      n->operand = inner.e;
      n->range = span;
      Spanned out{n, span};
      out.first = c->getStart();
      out.last = c->getStop();
      out.call = inner.call;
      out.call_parent = inner.call && !inner.call_parent ? n : inner.call_parent;
      out.open = inner.open;
      out.open_body = inner.open_body;
      return out;
    }
    Spanned out;
    out.span = span;
    out.first = c->getStart();
    out.last = c->getStop();
    if (first == P::LPAREN) {
      out.e = Expr(static_cast<P::ParenContext*>(c->children[0])->expr());
      parenthesized_.insert(out.e);
    } else {
      Opened opened;
      out.e = Primary(static_cast<P::PrimaryContext*>(c->children[0]), &opened);
      out.open = opened.r;
      out.open_body = opened.body_begin;
      out.call = dyn_cast<CallExpr>(out.e);
    }
    if (c->children.size() == 1) return out;
    // (LBRACK exprList RBRACK | DOT ID)*: after a reduction with its body in
    // parentheses, they apply to the body (which extends to the right).
    ast::Expr** base = out.open ? &out.open->body : &out.e;
    SourceLoc start = out.open ? out.open_body : span.begin;
    for (size_t i = 1; i < c->children.size();) {
      auto* t = static_cast<antlr4::tree::TerminalNode*>(c->children[i]);
      if (t->getSymbol()->getType() == P::LBRACK) {
        auto* n = module_->New<IndexExpr>();
        n->base = *base;
        n->indices = Exprs(static_cast<P::ExprListContext*>(c->children[i + 1]));
        auto* close = static_cast<antlr4::tree::TerminalNode*>(c->children[i + 2]);
        n->range = SourceRange{start, locate_.Range(close->getSymbol()).end};
        *base = n;
        i += 3;
      } else {
        auto* n = module_->New<MemberExpr>();
        n->base = *base;
        n->member = Id(static_cast<antlr4::tree::TerminalNode*>(c->children[i + 1]));
        n->range = SourceRange{start, n->member.range.end};
        *base = n;
        i += 2;
      }
    }
    if (out.open) out.open->range.end = span.end;
    out.call = nullptr;  // a postfix came after it
    return out;
  }

  // Groups a flat expression by precedence and applies `? then : else` when
  // given, after the reductions in it take their bodies. A body extends to
  // the end of the expression, `? :` included; three spellings start one:
  // - a call followed by a juxtaposed operand: `sum(k < K) x[k] * 2`;
  // - a reduction whose body is in parentheses, followed by an operator:
  //   `sum(k < K) (x[k]) * 2` (the operators join the body);
  // - a reducer call whose arguments read `name < extent`, followed by + or
  //   -: `sum(k < K) -x[k] * 2`; the sign applies to the term after it (the
  //   operands joined by * / %, as a binary minus would).
  // Reductions can follow one another, each in the body of the one before;
  // they are found left to right and built from the right, so that each
  // operand is grouped once.
  ast::Expr* Group(const Flat& flat, size_t from, Spanned then_value, Spanned else_value) {
    enum class Kind { Juxtaposed, Parenthesized, Signed };
    struct Cut {
      size_t at;         // the reduction's operand
      Kind kind;
      size_t rest_from;  // the first operand of the body after its head
      bool term_takes_rest = false;  // a signed term holding a reduction of its own
    };
    std::vector<Cut> cuts;
    size_t n = flat.operands.size();
    for (size_t i = from; i < n;) {
      if (i + 1 < n && !flat.ops[i]) {
        if (!flat.operands[i].call || !MeantAsReduction(flat.operands[i].call)) {
          MissingOperator(flat.operands[i], flat.operands[i + 1]);
          return module_->New<IntLit>();
        }
        if (!HasReductionVars(flat.operands[i].call)) return module_->New<IntLit>();
        cuts.push_back({i, Kind::Juxtaposed, i + 1});
        i += 1;
      } else if (flat.operands[i].open && (i + 1 < n || then_value.e)) {
        cuts.push_back({i, Kind::Parenthesized, i + 1});
        i += 1;
      } else if (i + 1 < n && SignedReductionAt(flat, i)) {
        size_t j = i + 1;
        while (j < flat.ops.size() && flat.ops[j] && Precedence(flat.ops[j]->getType()) == 0) ++j;
        // A reduction in the term (`sum(k < K) - max(l < L) x ...`) takes
        // the rest of the expression into its body, so the term does too.
        bool takes_rest = j + 1 < n && !flat.ops[j];
        for (size_t k = i + 1; k <= j; ++k) takes_rest = takes_rest || (flat.operands[k].open && (k + 1 < n || then_value.e));
        if (takes_rest) {
          cuts.push_back({i, Kind::Signed, n, true});
          break;
        }
        cuts.push_back({i, Kind::Signed, j + 1});
        i = j + 1;
      } else {
        ++i;
      }
    }
    if (TooDeep(flat.operands[from].span, cuts.size())) return module_->New<IntLit>();
    SourceLoc end = else_value.e ? else_value.span.end : flat.operands.back().span.end;
    // The operands [from, to) and the operators between them, then `last`
    // (the reduction built for the next cut) when given, joined by the
    // operator before it.
    auto slice = [&](size_t from, size_t to, const Spanned* last) {
      Flat part;
      for (size_t k = from; k < to; ++k) {
        if (k > from) part.ops.push_back(flat.ops[k - 1]);
        part.operands.push_back(flat.operands[k]);
      }
      if (last) {
        if (to > from) part.ops.push_back(flat.ops[to - 1]);
        part.operands.push_back(*last);
      }
      return part;
    };
    Spanned inner;  // the operand holding the reduction of the cut after the current one
    size_t inner_at = n;
    for (size_t c = cuts.size(); c-- > 0;) {
      const Cut& cut = cuts[c];
      Spanned at = flat.operands[cut.at];
      Flat body = slice(cut.rest_from, inner_at, inner.e ? &inner : nullptr);
      // The head of the body: the parenthesized body, or the signed term.
      Spanned head;
      antlr4::Token* link = nullptr;
      if (cut.kind == Kind::Parenthesized) {
        head = {at.open->body, SourceRange{at.open_body, at.open->body->range.end}};
        link = cut.at + 1 < n ? flat.ops[cut.at] : nullptr;
      } else if (cut.kind == Kind::Signed) {
        SourceRange op = locate_.Range(flat.ops[cut.at]);
        auto* sign = module_->New<UnaryExpr>();
        sign->op = flat.ops[cut.at]->getType() == P::MINUS ? UnaryOp::Neg : UnaryOp::Plus;
        if (cut.term_takes_rest) {
          if (TooDeep(flat.operands[cut.at + 1].span, 0)) return module_->New<IntLit>();
          ++depth_;
          sign->operand = Group(flat, cut.at + 1, then_value, else_value);
          --depth_;
          then_value = else_value = {};
        } else {
          sign->operand = Chain(slice(cut.at + 1, cut.rest_from, nullptr));
        }
        if (!sign->operand) return module_->New<IntLit>();
        sign->range = SourceRange{op.begin, cut.term_takes_rest ? end : flat.operands[cut.rest_from - 1].span.end};
        head = {sign, sign->range};
        link = cut.rest_from < n ? flat.ops[cut.rest_from - 1] : nullptr;
      }
      if (head.e) {
        if (!body.operands.empty()) body.ops.insert(body.ops.begin(), link);
        body.operands.insert(body.operands.begin(), head);
      }
      ast::Expr* value = Chain(std::move(body));
      if (!value) return module_->New<IntLit>();
      if (!inner.e && then_value.e) value = Ternary({value, SourceRange{value->range.begin, flat.operands.back().span.end}}, then_value, else_value);
      // The reduction, where the operand holds it.
      ReduceExpr* r = at.open;
      if (cut.kind != Kind::Parenthesized) {
        r = ReductionOfCall(at.call);
        if (at.call_parent) at.call_parent->operand = r;
        else at.e = r;
      }
      r->body = value;
      r->range.end = end;
      for (auto* u = dyn_cast<UnaryExpr>(at.e); u; u = dyn_cast<UnaryExpr>(u->operand)) u->range.end = end;
      at.span.end = end;
      at.call = nullptr;
      at.open = nullptr;
      inner = at;
      inner_at = cut.at;
    }
    ast::Expr* e = Chain(slice(from, inner_at, inner.e ? &inner : nullptr));
    if (!e) return module_->New<IntLit>();
    if (!cuts.empty() || !then_value.e) return e;
    return Ternary({e, SourceRange{flat.operands[from].span.begin, flat.operands.back().span.end}}, then_value, else_value);
  }

  ast::Expr* Ternary(Spanned cond, Spanned then_value, Spanned else_value) {
    auto* n = module_->New<TernaryExpr>();
    n->cond = cond.e;
    n->then_value = then_value.e;
    n->else_value = else_value.e;
    n->range = SourceRange{cond.span.begin, else_value.span.end};
    return n;
  }

  // Operator precedence parsing of operands[0] ops[0] operands[1] ...: a
  // stack of operands (with the depth of the tree each is) and a stack of
  // pending operators; all operators are left-associative. Null when the
  // tree would be deeper than the limit (reported).
  ast::Expr* Chain(Flat flat) {
    struct Value {
      Spanned v;
      size_t depth;
    };
    std::vector<Value> values;
    std::vector<antlr4::Token*> pending;
    size_t deepest = 1;
    auto reduce = [&] {
      antlr4::Token* op = pending.back();
      pending.pop_back();
      Value rhs = values.back();
      values.pop_back();
      Value& lhs = values.back();
      auto* n = module_->New<BinaryExpr>();
      n->op = BinaryOpOf(op->getType());
      n->op_range = locate_.Range(op);
      n->lhs = lhs.v.e;
      n->rhs = rhs.v.e;
      n->range = SourceRange{lhs.v.span.begin, rhs.v.span.end};
      lhs = Value{{n, n->range}, std::max(lhs.depth, rhs.depth) + 1};
      deepest = std::max(deepest, lhs.depth);
    };
    values.push_back({flat.operands[0], 1});
    for (size_t i = 0; i < flat.ops.size(); ++i) {
      int p = Precedence(flat.ops[i]->getType());
      while (!pending.empty() && Precedence(pending.back()->getType()) <= p) reduce();
      pending.push_back(flat.ops[i]);
      values.push_back({flat.operands[i + 1], 1});
    }
    while (!pending.empty()) reduce();
    if (TooDeep(flat.operands[0].span, deepest)) return nullptr;
    return values.back().v.e;
  }

  // Whether `call`, followed by a body at `body`, reads as a reduction;
  // reports why not.
  bool ReductionCall(CallExpr* call, antlr4::Token* body) {
    if (!MeantAsReduction(call)) {
      diags_.Report(locate_.Range(body), DiagKind::UnexpectedTokenExpected, DescribeToken(body, locate_),
                    "an operator");
      return false;
    }
    return HasReductionVars(call);
  }

  // Whether every argument of a call meant as a reduction reads `name <
  // extent` (and there is one); reports those that do not.
  bool HasReductionVars(CallExpr* call) {
    for (ast::Expr* a : call->args) {
      if (!ReductionVar(a)) {
        ReductionOfCall(call);  // reports the variables that are not
        return false;
      }
    }
    if (call->args.empty()) {
      ReductionOfCall(call);  // reports the missing variables
      return false;
    }
    return true;
  }

  // A call followed by a body was meant as a reduction when it calls sum or
  // prod (no function has those names), a reducer has no arguments (`max()
  // x`), or an argument reads `name < extent`; after any other call
  // (`max(a, b) c`, `f(x) y`) an operator is missing.
  bool MeantAsReduction(CallExpr* call) {
    const std::string& f = call->callee.name;
    if (ast::IsOnlyReducer(f)) return true;
    if (call->args.empty()) return ast::IsReducer(f);
    for (ast::Expr* a : call->args)
      if (ReductionVar(a)) return true;
    return false;
  }

  // `sum(c < C) -X[r, c]`: a reducer call whose arguments all read `name <
  // extent`, followed by + or -, is the reduction of a signed body.
  bool SignedReductionAt(const Flat& flat, size_t i) {
    if (!flat.ops[i]) return false;
    size_t op = flat.ops[i]->getType();
    if (op != P::PLUS && op != P::MINUS) return false;
    // The operand is the call itself: not in parentheses (which close a
    // reduction), not under a prefix (`-sum(k < K) - x` stays a call).
    CallExpr* call = flat.operands[i].call;
    if (!call || flat.operands[i].call_parent || call->args.empty()) return false;
    if (!ast::IsReducer(call->callee.name)) return false;
    for (ast::Expr* a : call->args)
      if (!ReductionVar(a)) return false;
    return true;
  }

  // The `name < extent` that an argument of a reduction reads, as grouping
  // by precedence made it: the leftmost `<` of the argument, whose left
  // operand is the name the argument begins with (`k < K - 1`, `k < a ? b :
  // c`), none of it in parentheses. Returns that `<` and the node whose left
  // operand (or condition) it is, null when the argument is the `<` itself.
  struct VarSplit {
    BinaryExpr* lt = nullptr;
    ast::Expr* parent = nullptr;
  };
  std::optional<VarSplit> ReductionVar(ast::Expr* arg) {
    VarSplit split;
    for (ast::Expr* e = arg;;) {
      if (parenthesized_.count(e)) return std::nullopt;
      if (auto* b = dyn_cast<BinaryExpr>(e)) {
        auto* name = dyn_cast<NameExpr>(b->lhs);
        if (b->op == BinaryOp::Lt && name && name->range.begin == arg->range.begin) {
          split.lt = b;
          return split;
        }
        split.parent = e;
        e = b->lhs;
      } else if (auto* t = dyn_cast<TernaryExpr>(e)) {
        split.parent = e;
        e = t->cond;
      } else {
        return std::nullopt;
      }
    }
  }

  // The reduction that a call means: its arguments become the variables
  // (each `<` taken out of its extent); the caller supplies the body.
  ReduceExpr* ReductionOfCall(CallExpr* call) {
    auto* r = module_->New<ReduceExpr>();
    r->range = call->range;
    r->reducer = call->callee;
    if (call->args.empty()) diags_.Report(call->range, DiagKind::ReductionVariableExpected);
    for (ast::Expr* a : call->args) {
      std::optional<VarSplit> split = ReductionVar(a);
      if (!split) {
        diags_.Report(a->range, DiagKind::ReductionVariableExpected);
        continue;
      }
      auto* name = static_cast<NameExpr*>(split->lt->lhs);
      ast::Expr* extent = split->lt->rhs;
      if (split->parent) {
        // The `<` is replaced by its right operand along the left spine,
        // whose nodes then begin where the extent does.
        for (ast::Expr* e = a;;) {
          e->range.begin = extent->range.begin;
          auto* b = dyn_cast<BinaryExpr>(e);
          ast::Expr*& left = b ? b->lhs : static_cast<TernaryExpr*>(e)->cond;
          if (e == split->parent) {
            left = extent;
            break;
          }
          e = left;
        }
        extent = a;
      }
      r->vars.push_back(ReduceExpr::Var{Ident{name->name, name->range}, extent});
    }
    return r;
  }

  // A reduction whose body is in parentheses, as a primary makes it: the
  // operators after it join its body (Group).
  struct Opened {
    ReduceExpr* r = nullptr;
    SourceLoc body_begin;  // the body's '('
  };

  ast::Expr* Primary(P::PrimaryContext* c, Opened* opened = nullptr) {
    switch (c->getStart()->getType()) {
      case P::INT_LIT: return IntLiteral(static_cast<P::IntLitContext*>(c));
      case P::FLOAT_LIT: return FloatLiteral(c, Text(c->getStart()), "");
      case P::TRUE: case P::FALSE: {
        auto* n = New<BoolLit>(c);
        n->value = c->getStart()->getType() == P::TRUE;
        return n;
      }
      case P::ID: return NameOrCall(static_cast<P::NameOrCallPrimaryContext*>(c), opened);
      default: {
        auto* e = static_cast<P::CastPrimaryContext*>(c);
        auto* n = New<CastExpr>(c);
        n->to = *ParseScalar(Text(e->scalarType()->getStart()));
        n->operand = Expr(e->expr());
        return n;
      }
    }
  }

  // A name, a call, or a reduction with its body in parentheses
  // (`sum(k < K) (x[k] + 1)`).
  ast::Expr* NameOrCall(P::NameOrCallPrimaryContext* c, Opened* opened) {
    if (c->children.size() == 1) {
      auto* n = New<NameExpr>(c);
      n->name = Text(c->ID()->getSymbol());
      return n;
    }
    auto* n = New<CallExpr>(c);
    n->callee = Id(c->ID());
    n->args = Exprs(c->exprList());
    if (!c->body) return n;
    // children: ID ( exprList? ) ( body )
    size_t k = c->children.size();
    auto* open_paren = static_cast<antlr4::tree::TerminalNode*>(c->children[k - 3])->getSymbol();
    auto* close_args = static_cast<antlr4::tree::TerminalNode*>(c->children[k - 4])->getSymbol();
    n->range.end = locate_.Range(close_args).end;
    if (!ReductionCall(n, open_paren)) return New<IntLit>(c);
    ReduceExpr* r = ReductionOfCall(n);
    r->body = Expr(c->body);
    r->range = locate_.Range(c);
    if (opened) *opened = Opened{r, locate_.Range(open_paren).begin};
    return r;
  }

  // Splits "123u32" into digits and suffix; underscores are separators.
  static void SplitNumber(const std::string& text, bool hex, std::string* digits,
                          std::string* suffix) {
    size_t i = hex ? 2 : 0;
    auto is_digit = [&](char ch) {
      return hex ? std::isxdigit(static_cast<unsigned char>(ch)) != 0
                 : (std::isdigit(static_cast<unsigned char>(ch)) != 0 || ch == '.' ||
                    ch == 'e' || ch == 'E' || ch == '+' || ch == '-');
    };
    for (; i < text.size(); ++i) {
      char ch = text[i];
      if (ch == '_') continue;
      if (!is_digit(ch)) break;
      // An 'e' is part of the number only when an exponent follows.
      if (!hex && (ch == 'e' || ch == 'E')) {
        size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
        if (j >= text.size() || !std::isdigit(static_cast<unsigned char>(text[j]))) break;
      }
      if (!hex && (ch == '+' || ch == '-') && !(i > 0 && (text[i - 1] == 'e' || text[i - 1] == 'E')))
        break;
      *digits += ch;
    }
    *suffix = text.substr(i);
  }

  ast::Expr* IntLiteral(P::IntLitContext* c) {
    std::string text = Text(c->getStart());
    bool hex = text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    bool bin = text.size() > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B');
    std::string digits, suffix;
    if (bin) {
      size_t i = 2;
      for (; i < text.size() && (text[i] == '0' || text[i] == '1' || text[i] == '_'); ++i)
        if (text[i] != '_') digits += text[i];
      suffix = text.substr(i);
    } else {
      SplitNumber(text, hex, &digits, &suffix);
    }
    SourceRange range = locate_.Range(c);
    // A float suffix on a decimal integer makes a float literal: 2f, 1f16.
    if (!hex && !bin && !suffix.empty() && FloatSuffix(suffix))
      return FloatLiteral(c, digits, suffix);
    auto* n = New<IntLit>(c);
    if (!suffix.empty()) {
      n->suffix = IntSuffix(suffix);
      if (!n->suffix) {
        diags_.Report(range, DiagKind::InvalidLiteralSuffix, suffix, "integer");
      }
    }
    unsigned base = hex ? 16 : bin ? 2 : 10;
    uint64_t value = 0;
    bool overflow = false;
    for (char ch : digits) {
      unsigned d = std::isdigit(static_cast<unsigned char>(ch))
                       ? static_cast<unsigned>(ch - '0')
                       : static_cast<unsigned>(std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10);
      if (value > (UINT64_MAX - d) / base) overflow = true;
      value = value * base + d;
    }
    if (overflow) diags_.Report(range, DiagKind::IntegerLiteralTooLarge);
    n->value = overflow ? 0 : value;
    return n;
  }

  static std::optional<ScalarKind> IntSuffix(const std::string& s) {
    if (s == "u") return ScalarKind::U32;
    auto k = ParseScalar(s);
    if (k && IsInteger(*k) && s != "int") return k;
    return std::nullopt;
  }

  static std::optional<ScalarKind> FloatSuffix(const std::string& s) {
    if (s == "f") return ScalarKind::F32;
    auto k = ParseScalar(s);
    if (k && IsFloat(*k)) return k;
    return std::nullopt;
  }

  ast::Expr* FloatLiteral(antlr4::ParserRuleContext* c, const std::string& text,
                          std::string suffix) {
    auto* n = New<FloatLit>(c);
    n->spelling = Text(c->getStart());
    std::string digits = text;
    if (suffix.empty()) {
      digits.clear();
      SplitNumber(n->spelling, false, &digits, &suffix);
    }
    if (!suffix.empty()) {
      n->suffix = FloatSuffix(suffix);
      if (!n->suffix) diags_.Report(n->range, DiagKind::InvalidLiteralSuffix, suffix, "floating-point");
    }
    errno = 0;
    n->value = std::strtod(digits.c_str(), nullptr);
    if (errno == ERANGE && std::abs(n->value) > 1.0)
      diags_.Report(n->range, DiagKind::FloatLiteralOutOfRange, "f64");
    return n;
  }

  DiagnosticEngine& diags_;
  const TokenLocator& locate_;
  std::unique_ptr<Module> module_;
  unsigned max_depth_;
  const std::vector<size_t>& skipped_bodies_;  // start indices of the `{` of kernel bodies left out
  unsigned depth_ = 0;
  bool too_deep_ = false;
  // Expressions written in parentheses (which no reduction variable is).
  std::unordered_set<const ast::Expr*> parenthesized_;
};

}  // namespace

std::unique_ptr<ast::Module> BuildAst(P::TranslationUnitContext* tree, uint32_t file_id,
                                      DiagnosticEngine& diags, const TokenLocator& locate,
                                      unsigned max_expr_depth, const std::vector<size_t>& skipped_bodies) {
  return Builder(file_id, diags, locate, max_expr_depth, skipped_bodies).Run(tree);
}

}  // namespace tmc
