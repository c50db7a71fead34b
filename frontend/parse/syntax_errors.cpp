// ANTLR reports three situations: a token is missing (single-token
// insertion), a token is extraneous (single-token deletion), or no rule
// alternative fits. Each becomes one diagnostic naming the offending token
// and, when the set is small enough to help, the tokens that would fit.
#include "frontend/parse/syntax_errors.h"

#include <TmParser.h>

namespace tmc {
namespace {

using grammar::TmParser;

std::string TokenTypeName(const antlr4::dfa::Vocabulary& vocab, size_t type) {
  switch (type) {
    case antlr4::Token::EOF: return "end of file";
    case TmParser::ID: return "identifier";
    case TmParser::INT_LIT: return "integer literal";
    case TmParser::FLOAT_LIT: return "floating-point literal";
    default: return vocab.getDisplayName(type);
  }
}

std::string ExpectedHint(antlr4::Parser* parser, const antlr4::Token* offending) {
  antlr4::misc::IntervalSet set = parser->getExpectedTokens();
  // At the end of the file, the missing piece is almost always a '}'.
  if (offending->getType() == antlr4::Token::EOF && set.contains(static_cast<size_t>(TmParser::RBRACE)))
    return "'}'";
  // Where any expression may start, say so instead of listing tokens.
  if (set.contains(static_cast<size_t>(TmParser::INT_LIT)) && set.contains(static_cast<size_t>(TmParser::ID)))
    return "expression";
  if (set.contains(static_cast<size_t>(TmParser::F32)) && set.contains(static_cast<size_t>(TmParser::I32)))
    return "a type";
  std::vector<std::string> names;
  for (ssize_t t : set.toList()) {
    names.push_back(t < 0 ? "end of file"
                          : TokenTypeName(parser->getVocabulary(), static_cast<size_t>(t)));
  }
  // A long list ("expected one of 40 tokens") helps nobody.
  if (names.empty() || names.size() > 6) return "";
  if (names.size() == 1) return names.front();
  std::string s = "one of ";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

// For an error that wants a closing bracket: the innermost opening bracket
// of that kind still open before `offending`, as clang's "to match this".
const antlr4::Token* UnclosedOpener(antlr4::Parser* parser, const antlr4::Token* offending,
                                    const std::string& hint) {
  size_t open = hint == "'}'" ? TmParser::LBRACE : hint == "')'" ? TmParser::LPAREN
              : hint == "']'" ? TmParser::LBRACK : 0;
  if (open == 0) return nullptr;
  auto* stream = static_cast<antlr4::BufferedTokenStream*>(parser->getTokenStream());
  std::vector<const antlr4::Token*> stack;
  auto opener_of = [](size_t close) -> size_t {
    return close == TmParser::RBRACE ? TmParser::LBRACE : close == TmParser::RPAREN ? TmParser::LPAREN
         : close == TmParser::RBRACK ? TmParser::LBRACK : 0;
  };
  for (size_t i = 0; i < offending->getTokenIndex() && i < stream->size(); ++i) {
    const antlr4::Token* t = stream->get(i);
    size_t type = t->getType();
    if (type == TmParser::LBRACE || type == TmParser::LPAREN || type == TmParser::LBRACK) {
      stack.push_back(t);
    } else if (size_t want = opener_of(type)) {
      // A stray closer closes the innermost opener of its kind.
      for (size_t k = stack.size(); k-- > 0;)
        if (stack[k]->getType() == want) {
          stack.resize(k);
          break;
        }
    }
  }
  for (size_t k = stack.size(); k-- > 0;)
    if (stack[k]->getType() == open) return stack[k];
  return nullptr;
}

// `X[0] = 1.0` and, on the next line, `Y[0] = 2.0;`: the parser reads
// `1.0 Y[0]` as a reduction's body beside its call (Tm.g4, expr) and trips
// on the second '='. When an assignment operator is the offending token and
// the statement before it has a line that begins with an operand right
// after one that ended an operand, the ';' is missing at that line break:
// returns the token that begins the line.
const antlr4::Token* UnterminatedLine(antlr4::Parser* parser, const antlr4::Token* offending) {
  size_t type = offending->getType();
  bool assign = type == TmParser::ASSIGN || (type >= TmParser::PLUS_ASSIGN && type <= TmParser::SHR_ASSIGN);
  if (!assign) return nullptr;
  auto ends_operand = [](size_t t) {
    return t == TmParser::ID || t == TmParser::INT_LIT || t == TmParser::FLOAT_LIT || t == TmParser::TRUE ||
           t == TmParser::FALSE || t == TmParser::RPAREN || t == TmParser::RBRACK;
  };
  auto begins_operand = [](size_t t) {
    return t == TmParser::ID || t == TmParser::INT_LIT || t == TmParser::FLOAT_LIT || t == TmParser::TRUE ||
           t == TmParser::FALSE || t == TmParser::NOT || t == TmParser::TILDE ||
           (t >= TmParser::BOOL && t <= TmParser::INT);
  };
  auto* stream = static_cast<antlr4::BufferedTokenStream*>(parser->getTokenStream());
  for (size_t i = offending->getTokenIndex(); i-- > 1;) {
    const antlr4::Token* t = stream->get(i);
    const antlr4::Token* before = stream->get(i - 1);
    size_t bt = before->getType();
    if (bt == TmParser::SEMI || bt == TmParser::LBRACE || bt == TmParser::RBRACE) return nullptr;
    if (t->getLine() > before->getLine() && begins_operand(t->getType()) && ends_operand(bt)) return t;
  }
  return nullptr;
}

}  // namespace

std::string DescribeToken(const antlr4::Token* tok, const TokenLocator& locate) {
  if (tok->getType() == antlr4::Token::EOF) return "end of file";
  // A token of a tool's wrapper (tmc mapping's closing ';') ends the input.
  if (locate.sm.IsHidden(locate.Range(tok).begin)) return "end of input";
  std::string text = tok->getText();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  if (tok->getType() == TmParser::ID) return "identifier '" + text + "'";
  return "'" + text + "'";
}

SourceRange TokenLocator::Range(const antlr4::Token* tok) const {
  if (tok->getType() == antlr4::Token::EOF) {
    uint32_t end = static_cast<uint32_t>(sm.Contents(file_id).size());
    return SourceRange{sm.Loc(file_id, end), sm.Loc(file_id, end)};
  }
  uint32_t b = cp_map.ByteOffset(tok->getStartIndex());
  uint32_t e = cp_map.ByteOffset(tok->getStopIndex() + 1);
  return SourceRange{sm.Loc(file_id, b), sm.Loc(file_id, e)};
}

SourceRange TokenLocator::After(const antlr4::Token* tok) const {
  SourceRange r = Range(tok);
  return SourceRange{r.end, r.end};
}

SourceRange TokenLocator::Range(antlr4::ParserRuleContext* ctx) const {
  SourceRange b = Range(ctx->getStart());
  const antlr4::Token* stop = ctx->getStop();
  if (!stop || stop->getTokenIndex() < ctx->getStart()->getTokenIndex()) return b;
  return SourceRange{b.begin, Range(stop).end};
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending,
                                      size_t, size_t, const std::string& msg,
                                      std::exception_ptr) {
  auto* parser = static_cast<antlr4::Parser*>(recognizer);
  ++errors_;
  // One mistake, one diagnostic: after an error, ANTLR's recovery often
  // trips again within the same statement ("if x > 1 {" -> missing '(' and
  // then missing ')'). Errors before the next ';', '{' or '}' are dropped.
  size_t index = offending->getTokenIndex();
  if (last_error_index_) {
    bool new_statement = false;
    auto* stream = static_cast<antlr4::BufferedTokenStream*>(parser->getTokenStream());
    for (size_t i = *last_error_index_ + 1; i < index && !new_statement; ++i) {
      size_t t = stream->get(i)->getType();
      new_statement = t == TmParser::SEMI || t == TmParser::LBRACE || t == TmParser::RBRACE;
    }
    if (!new_statement) return;
  }
  last_error_index_ = index;
  if (const antlr4::Token* line_start = UnterminatedLine(parser, offending)) {
    auto* stream = static_cast<antlr4::BufferedTokenStream*>(parser->getTokenStream());
    diags_.Report(locate_.After(stream->get(line_start->getTokenIndex() - 1)), DiagKind::ExpectedToken, "';'",
                  DescribeToken(line_start, locate_));
    if (diags_.ShouldStop()) throw antlr4::ParseCancellationException("error limit");
    return;
  }
  std::string hint = ExpectedHint(parser, offending);
  const antlr4::Token* opener = UnclosedOpener(parser, offending, hint);
  auto note_opener = [&](DiagnosticBuilder&& diag) {
    if (opener) diag.Note(locate_.Range(opener), DiagKind::NoteToMatch, opener->getText());
  };
  if (msg.rfind("missing ", 0) == 0 && !hint.empty()) {
    // Point just past the previous token, as clang does for a missing ';'.
    antlr4::Token* prev = parser->getTokenStream()->LT(-1);
    SourceRange where = prev ? locate_.After(prev) : locate_.Range(offending);
    note_opener(diags_.Report(where, DiagKind::ExpectedToken, hint, DescribeToken(offending, locate_)));
  } else if (!hint.empty()) {
    note_opener(diags_.Report(locate_.Range(offending), DiagKind::UnexpectedTokenExpected,
                              DescribeToken(offending, locate_), hint));
  } else {
    diags_.Report(locate_.Range(offending), DiagKind::UnexpectedToken, DescribeToken(offending, locate_));
  }
  if (diags_.ShouldStop()) throw antlr4::ParseCancellationException("error limit");
}

}  // namespace tmc
