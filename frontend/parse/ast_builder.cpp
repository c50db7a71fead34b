// A straight walk over the labelled parse-tree contexts. The grammar lists
// the alternatives; each gets one case here.
#include "frontend/parse/ast_builder.h"

#include <cerrno>
#include <cstdlib>

namespace tmc {
namespace {

using P = grammar::TmParser;
using namespace ast;

class Builder {
 public:
  Builder(uint32_t file_id, DiagnosticEngine& diags, const TokenLocator& locate,
          unsigned max_depth)
      : diags_(diags), locate_(locate), max_depth_(max_depth) {
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
    return Ident{node->getText(), locate_.Range(node->getSymbol())};
  }

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
    if (list)
      for (auto* e : list->expr()) out.push_back(Expr(e));
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
    n->name = c->getText();
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
        if (p->scalarType()) cp.default_value = TypeName(p->scalarType());
        d->ct_params.push_back(std::move(cp));
      }
    }
    d->params = Params(c->paramList());
    for (P::KernelClauseContext* k : c->kernelClause()) {
      if (auto* imp = dynamic_cast<P::ImplementsClauseContext*>(k)) {
        d->implements = Id(imp->ID());
      } else if (auto* w = dynamic_cast<P::WhereClauseContext*>(k)) {
        for (auto* e : w->expr()) d->where.push_back(Expr(e));
      } else {
        auto* l = static_cast<P::LaunchClauseContext*>(k);
        d->launch.push_back(LaunchClause{Id(l->ID()), Exprs(l->exprList()), locate_.Range(l)});
      }
    }
    d->body = Block(c->block());
    return d;
  }

  TypeSpec Type(P::Type_Context* c) {
    TypeSpec t;
    t.range = locate_.Range(c);
    if (c->scalarType()) t.elem = *ParseScalar(c->scalarType()->getText());
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
    if (auto* s = dynamic_cast<P::LetStmtContext*>(c)) {
      auto* n = New<LetStmt>(c);
      n->name = Id(s->ID());
      if (s->type_()) n->type = Type(s->type_());
      n->init = Expr(s->expr());
      return n;
    }
    if (auto* s = dynamic_cast<P::VarStmtContext*>(c)) {
      auto* n = New<VarStmt>(c);
      n->name = Id(s->ID());
      if (s->type_()) n->type = Type(s->type_());
      if (s->expr()) n->init = Expr(s->expr());
      return n;
    }
    if (auto* s = dynamic_cast<P::SharedStmtContext*>(c)) {
      auto* n = New<SharedStmt>(c);
      n->name = Id(s->ID());
      n->type = Type(s->type_());
      return n;
    }
    if (auto* s = dynamic_cast<P::RegisterStmtContext*>(c)) {
      auto* n = New<RegisterStmt>(c);
      n->name = Id(s->ID());
      n->type = Type(s->type_());
      if (s->expr()) n->by = Expr(s->expr());
      return n;
    }
    if (auto* s = dynamic_cast<P::IfStmtContext*>(c)) return If(s->ifStatement());
    if (auto* s = dynamic_cast<P::ForStmtContext*>(c)) {
      auto* n = New<ForStmt>(c);
      for (auto* id : s->forVars()->ID()) n->vars.push_back(Id(id));
      n->parenthesized = s->forVars()->LPAREN() != nullptr;
      n->iter = Expr(s->expr(0));
      if (s->ON()) n->worker = Expr(s->expr(1));
      n->body = Block(s->block());
      return n;
    }
    if (auto* s = dynamic_cast<P::WhileStmtContext*>(c)) {
      auto* n = New<WhileStmt>(c);
      n->cond = Expr(s->expr());
      n->body = Block(s->block());
      return n;
    }
    if (dynamic_cast<P::BreakStmtContext*>(c)) return New<BreakStmt>(c);
    if (dynamic_cast<P::ContinueStmtContext*>(c)) return New<ContinueStmt>(c);
    if (dynamic_cast<P::SyncStmtContext*>(c)) return New<SyncStmt>(c);
    if (auto* s = dynamic_cast<P::ReturnStmtContext*>(c)) {
      auto* n = New<ReturnStmt>(c);
      std::vector<P::ExprContext*> values = s->expr();
      for (size_t i = 0; i < values.size(); ++i) {
        if (i == 0) n->value = Expr(values[i]);
        else n->more.push_back(Expr(values[i]));
      }
      return n;
    }
    if (auto* s = dynamic_cast<P::BlockStmtContext*>(c)) return Block(s->block());
    auto* s = static_cast<P::ExprStmtContext*>(c);
    if (s->assignOp()) {
      auto* n = New<AssignStmt>(c);
      n->target = Expr(s->expr(0));
      n->value = Expr(s->expr(1));
      n->op_range = locate_.Range(s->assignOp());
      n->op = AssignOpOf(s->assignOp()->getStart()->getType());
      return n;
    }
    auto* n = New<ExprStmt>(c);
    n->expr = Expr(s->expr(0));
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

  // Left-recursive operator chains ("1 + 1 + ... + 1") are parsed by a loop,
  // not by recursion, so the parser's depth guard does not see them; the
  // tree they make is as deep as the chain is long. Deeper than the limit,
  // the file is rejected here, before anything recurses over the tree.
  ast::Expr* Expr(P::ExprContext* c) {
    if (depth_ >= max_depth_) {
      if (!too_deep_) diags_.Report(locate_.Range(c->getStart()), DiagKind::NestingTooDeep, max_depth_);
      too_deep_ = true;
      return module_->New<IntLit>();
    }
    ++depth_;
    ast::Expr* e = ExprAt(c);
    --depth_;
    return e;
  }

  ast::Expr* ExprAt(P::ExprContext* c) {
    if (auto* e = dynamic_cast<P::PrimaryExprContext*>(c)) return Primary(e->primary());
    if (auto* e = dynamic_cast<P::IndexExprContext*>(c)) {
      auto* n = New<IndexExpr>(c);
      n->base = Expr(e->expr());
      n->indices = Exprs(e->exprList());
      return n;
    }
    if (auto* e = dynamic_cast<P::MemberExprContext*>(c)) {
      auto* n = New<MemberExpr>(c);
      n->base = Expr(e->expr());
      n->member = Id(e->ID());
      return n;
    }
    if (auto* e = dynamic_cast<P::UnaryExprContext*>(c)) {
      auto* n = New<UnaryExpr>(c);
      switch (e->op->getType()) {
        case P::MINUS: n->op = UnaryOp::Neg; break;
        case P::PLUS: n->op = UnaryOp::Plus; break;
        case P::NOT: n->op = UnaryOp::Not; break;
        default: n->op = UnaryOp::BitNot; break;
      }
      n->operand = Expr(e->expr());
      return n;
    }
    if (auto* e = dynamic_cast<P::BinaryExprContext*>(c)) {
      auto* n = New<BinaryExpr>(c);
      n->op = BinaryOpOf(e->op->getType());
      n->op_range = locate_.Range(e->op);
      n->lhs = Expr(e->expr(0));
      n->rhs = Expr(e->expr(1));
      return ReductionWithSignedBody(n);
    }
    if (auto* e = dynamic_cast<P::TernaryExprContext*>(c)) {
      auto* n = New<TernaryExpr>(c);
      n->cond = Expr(e->expr(0));
      n->then_value = Expr(e->expr(1));
      n->else_value = Expr(e->expr(2));
      return n;
    }
    auto* e = static_cast<P::ReduceExprContext*>(c);
    auto* n = New<ReduceExpr>(c);
    n->reducer = Id(e->ID());
    for (P::ReduceVarContext* v : e->reduceVar())
      n->vars.push_back(ReduceExpr::Var{Id(v->ID()), Expr(v->expr())});
    n->body = Expr(e->expr());
    return n;
  }

  // `sum(c < C) -X[r, c]` parses as the call `sum(c < C)` minus `X[r, c]`
  // (a call and a binary minus are a valid reading, tried first). A call of
  // a reducer whose arguments all have the form `name < extent` is read as
  // the reduction it means: the operator becomes the sign of the body, and
  // the operators that follow join the body, which extends to the right.
  ast::Expr* ReductionWithSignedBody(BinaryExpr* n) {
    if (auto* r = dyn_cast<ReduceExpr>(n->lhs); r && r->open_body) {
      n->lhs = r->body;
      r->body = n;
      r->range.end = n->range.end;
      return r;
    }
    auto* call = dyn_cast<CallExpr>(n->lhs);
    if (!call || (n->op != BinaryOp::Add && n->op != BinaryOp::Sub) || call->args.empty()) return n;
    const std::string& f = call->callee.name;
    if (f != "sum" && f != "max" && f != "min" && f != "prod") return n;
    auto* r = module_->New<ReduceExpr>();
    r->range = n->range;
    r->reducer = call->callee;
    for (ast::Expr* a : call->args) {
      auto* lt = dyn_cast<BinaryExpr>(a);
      auto* var = lt ? dyn_cast<NameExpr>(lt->lhs) : nullptr;
      if (!var || lt->op != BinaryOp::Lt) return n;
      r->vars.push_back(ReduceExpr::Var{Ident{var->name, var->range}, lt->rhs});
    }
    auto* sign = module_->New<UnaryExpr>();
    sign->range = SourceRange{n->op_range.begin, n->rhs->range.end};
    sign->op = n->op == BinaryOp::Sub ? UnaryOp::Neg : UnaryOp::Plus;
    sign->operand = n->rhs;
    r->body = sign;
    r->open_body = true;
    return r;
  }

  ast::Expr* Primary(P::PrimaryContext* c) {
    if (auto* e = dynamic_cast<P::IntLitContext*>(c)) return IntLiteral(e);
    if (auto* e = dynamic_cast<P::FloatLitContext*>(c)) return FloatLiteral(c, e->getText(), "");
    if (auto* e = dynamic_cast<P::BoolLitContext*>(c)) {
      auto* n = New<BoolLit>(c);
      n->value = e->TRUE() != nullptr;
      return n;
    }
    if (auto* e = dynamic_cast<P::NameOrCallPrimaryContext*>(c)) {
      if (!e->LPAREN()) {
        auto* n = New<NameExpr>(c);
        n->name = e->ID()->getText();
        return n;
      }
      auto* n = New<CallExpr>(c);
      n->callee = Id(e->ID());
      n->args = Exprs(e->exprList());
      return n;
    }
    if (auto* e = dynamic_cast<P::CastPrimaryContext*>(c)) {
      auto* n = New<CastExpr>(c);
      n->to = *ParseScalar(e->scalarType()->getText());
      n->operand = Expr(e->expr());
      return n;
    }
    // Parentheses close a reduction's body (see ReductionWithSignedBody).
    ast::Expr* inner = Expr(static_cast<P::ParenPrimaryContext*>(c)->expr());
    if (auto* r = dyn_cast<ReduceExpr>(inner)) r->open_body = false;
    return inner;
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
    std::string text = c->getText();
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
    n->spelling = c->getText();
    std::string digits = text;
    if (suffix.empty()) {
      digits.clear();
      SplitNumber(c->getText(), false, &digits, &suffix);
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
  unsigned depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace

std::unique_ptr<ast::Module> BuildAst(P::TranslationUnitContext* tree, uint32_t file_id,
                                      DiagnosticEngine& diags, const TokenLocator& locate,
                                      unsigned max_expr_depth) {
  return Builder(file_id, diags, locate, max_expr_depth).Run(tree);
}

}  // namespace tmc
