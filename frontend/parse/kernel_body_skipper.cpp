// See kernel_body_skipper.h. A kernel's signature holds no braces (Tm.g4:
// kernelDecl), so its body is the first `{` after `kernel` outside
// parentheses and brackets.
#include "frontend/parse/kernel_body_skipper.h"

#include <TmLexer.h>

namespace tmc {

using grammar::TmLexer;

std::unique_ptr<antlr4::Token> KernelBodySkipper::nextToken() {
  if (!queued_.empty()) {
    std::unique_ptr<antlr4::Token> t = std::move(queued_.front());
    queued_.pop_front();
    return t;
  }
  std::unique_ptr<antlr4::Token> t = inner_->nextToken();
  if (at_name_) {
    at_name_ = false;
    // The kept kernel's body passes as an op's does.
    if (t->getType() == TmLexer::ID && !keep_.empty() && t->getText() == keep_) in_signature_ = false;
  }
  switch (t->getType()) {
    case TmLexer::KERNEL:
      if (depth_ == 0) {
        in_signature_ = true;
        at_name_ = true;
        brackets_ = 0;
      }
      break;
    case TmLexer::LPAREN:
    case TmLexer::LBRACK:
      if (in_signature_) ++brackets_;
      break;
    case TmLexer::RPAREN:
    case TmLexer::RBRACK:
      if (in_signature_ && brackets_ > 0) --brackets_;
      break;
    case TmLexer::SEMI:  // no kernel has one before its body: a syntax error follows
      if (brackets_ == 0) in_signature_ = false;
      break;
    case TmLexer::LBRACE:
      if (in_signature_ && brackets_ == 0) {
        in_signature_ = false;
        skipped_.push_back(t->getStartIndex());
        SkipBody();
      } else {
        ++depth_;
      }
      break;
    case TmLexer::RBRACE:
      if (depth_ > 0) --depth_;
      break;
    default:
      break;
  }
  return t;
}

// Only the tokens that pass on are made; the rest are lexed for their type.
void KernelBodySkipper::SkipBody() {
  unsigned open = 1;
  for (;;) {
    TmTokenSource::Lexeme l = inner_->Lex(/*keywords=*/false);
    switch (l.type) {
      case TmLexer::LBRACE:
        ++open;
        break;
      case TmLexer::RBRACE:
        if (--open == 0) {
          queued_.push_back(inner_->Make(l));
          return;
        }
        break;
      case antlr4::Token::EOF:
        unbalanced_ = true;
        queued_.push_back(inner_->Make(l));
        return;
      case TmLexer::ERROR_CHAR:
      case TmLexer::UNTERMINATED_COMMENT:  // the end of the file follows
        queued_.push_back(inner_->Make(l));
        break;
      default:
        break;
    }
  }
}

}  // namespace tmc
