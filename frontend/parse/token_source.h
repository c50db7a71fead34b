// The lexer of .tm files: grammar/Tm.g4's lexer rules, hand-written.
// ANTLR's generated lexer simulates its ATN over every character and
// builds its DFA anew in every process: 14% of the compile of a small
// kernel of a standard-library module (4,000 instructions per token).
// This one produces the same tokens (type, start and stop code-point
// index, line, column) an order of magnitude faster; the generated lexer
// stays the reference: CompareWithGeneratedLexer (lexer_check.h) checks that both agree
// (test/unit/frontend_test.cpp, on every .tm file of the repository and on
// random and adversarial text).
#pragma once

#include <antlr4-runtime.h>

#include <memory>
#include <string>
#include <string_view>

namespace tmc {

/// ANTLR's input stream of a text already checked to be valid UTF-8
/// (FindInvalidUtf8), decoded by tmc's UTF-8 decoder rather than by
/// ANTLRInputStream::load's std::wstring_convert (five times slower), and
/// read by TmTokenSource in place. Unlike ANTLRInputStream it keeps a
/// leading byte-order mark (TmTokenSource skips it): token indices then
/// count the file's code points, as the diagnostics' CodePointMap does.
class TmInputStream : public antlr4::ANTLRInputStream {
 public:
  explicit TmInputStream(std::string_view valid_utf8);
  const std::u32string& CodePoints() const { return _data; }
};

class TmTokenSource : public antlr4::TokenSource {
 public:
  /// Reads `input` once, or (a TmInputStream) in place.
  explicit TmTokenSource(antlr4::CharStream* input);
  TmTokenSource(const TmTokenSource&) = delete;  // text_ may view owned_
  TmTokenSource& operator=(const TmTokenSource&) = delete;

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() override { return column_; }
  antlr4::CharStream* getInputStream() override { return input_; }
  std::string getSourceName() override { return input_->getSourceName(); }
  template <typename T>
  void setTokenFactory(antlr4::TokenFactory<T>* factory) { factory_ = factory; }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override { return factory_; }

  /// A token as lexed, before it is made (Make): its type and its code
  /// points [start, end), at `line` and `column`.
  struct Lexeme {
    size_t type, start, end, line, column;
  };
  /// Lexes the next token and moves past it. Without `keywords`, a keyword
  /// comes out as an ID (KernelBodySkipper, which looks for braces only,
  /// makes no token of most of what it skips).
  Lexeme Lex(bool keywords);
  std::unique_ptr<antlr4::Token> Make(const Lexeme& l);

 private:
  size_t At(size_t i) const;  // the code point at i, or 0 past the end
  void Advance(size_t to);     // moves to `to`, counting lines and columns
  size_t NumberEnd(size_t start, size_t* type) const;
  size_t OperatorEnd(size_t start, size_t* type) const;

  antlr4::CharStream* input_;
  antlr4::TokenFactory<antlr4::CommonToken>* factory_;
  std::u32string owned_;     // the input's code points, read once (not a TmInputStream)
  std::u32string_view text_;  // the input's code points
  size_t size_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t column_ = 0;
};

}  // namespace tmc
