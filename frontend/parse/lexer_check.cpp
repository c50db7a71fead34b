// The hand-written lexer against ANTLR's generated one (lexer_check.h). In
// a file of its own so that only the unit tests link the generated lexer
// (and run its static initialisation).
#include "frontend/parse/lexer_check.h"

#include <TmLexer.h>
#include <fmt/format.h>

#include <memory>

#include "frontend/parse/token_source.h"
#include "support/utf8.h"

namespace tmc {

using grammar::TmLexer;

namespace {

std::optional<std::string> Compare(std::string_view text, antlr4::CharStream* fast_input) {
  antlr4::ANTLRInputStream a(text.data(), text.size());
  TmLexer generated(&a);
  generated.removeErrorListeners();
  TmTokenSource fast(fast_input);
  for (size_t i = 0;; ++i) {
    std::unique_ptr<antlr4::Token> x = generated.nextToken(), y = fast.nextToken();
    auto describe = [](const antlr4::Token& t) {
      return fmt::format("type {} [{}, {}] line {} column {} '{}'", static_cast<long long>(t.getType()),
                         static_cast<long long>(t.getStartIndex()), static_cast<long long>(t.getStopIndex()),
                         t.getLine(), t.getCharPositionInLine(), t.getText());
    };
    if (x->getType() != y->getType() || x->getStartIndex() != y->getStartIndex() ||
        x->getStopIndex() != y->getStopIndex() || x->getLine() != y->getLine() ||
        x->getCharPositionInLine() != y->getCharPositionInLine() || x->getText() != y->getText())
      return fmt::format("token {}: generated lexer {}, tmc's {}", i, describe(*x), describe(*y));
    if (x->getType() == antlr4::Token::EOF) return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> CompareWithGeneratedLexer(std::string_view text) {
  // tmc's lexer over ANTLR's input stream, and over tmc's (the parser's,
  // for valid UTF-8).
  antlr4::ANTLRInputStream b(text.data(), text.size());
  if (auto diff = Compare(text, &b)) return diff;
  if (FindInvalidUtf8(text)) return std::nullopt;
  // ANTLR's stream drops a leading byte-order mark, TmInputStream keeps it
  // (its tokens' indices then count it): compared on the text after it.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  TmInputStream c(text);
  if (auto diff = Compare(text, &c)) return "over TmInputStream: " + *diff;
  return std::nullopt;
}

}  // namespace tmc
