// The lexer of .tm files (see token_source.h). Each rule below names the
// grammar/Tm.g4 rule it implements; as in ANTLR, the longest match wins and
// of two matches of the same length the rule listed first in the grammar.
#include "frontend/parse/token_source.h"

#include <TmLexer.h>

#include <array>
#include <string_view>
#include <unordered_map>

#include "support/utf8.h"

namespace tmc {
namespace {

using grammar::TmLexer;

bool IsDigit(size_t c) { return c >= '0' && c <= '9'; }
bool IsLetter(size_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsIdStart(size_t c) { return IsLetter(c) || c == '_'; }
bool IsIdPart(size_t c) { return IsIdStart(c) || IsDigit(c); }
bool IsHexDigit(size_t c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsSpace(size_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

const std::unordered_map<std::string_view, size_t>& Keywords() {
  static const std::unordered_map<std::string_view, size_t> keywords = {
      {"import", TmLexer::IMPORT},   {"op", TmLexer::OP},         {"kernel", TmLexer::KERNEL},
      {"func", TmLexer::FUNC},       {"graph", TmLexer::GRAPH},   {"let", TmLexer::LET},
      {"var", TmLexer::VAR},         {"shared", TmLexer::SHARED}, {"register", TmLexer::REGISTER},
      {"by", TmLexer::BY},           {"for", TmLexer::FOR},       {"in", TmLexer::IN},
      {"on", TmLexer::ON},           {"if", TmLexer::IF},         {"else", TmLexer::ELSE},
      {"while", TmLexer::WHILE},     {"break", TmLexer::BREAK},   {"continue", TmLexer::CONTINUE},
      {"return", TmLexer::RETURN},   {"sync", TmLexer::SYNC},     {"implements", TmLexer::IMPLEMENTS},
      {"where", TmLexer::WHERE},     {"true", TmLexer::TRUE},     {"false", TmLexer::FALSE},
      {"bool", TmLexer::BOOL},       {"i8", TmLexer::I8},         {"i16", TmLexer::I16},
      {"i32", TmLexer::I32},         {"i64", TmLexer::I64},       {"u8", TmLexer::U8},
      {"u16", TmLexer::U16},         {"u32", TmLexer::U32},       {"u64", TmLexer::U64},
      {"f16", TmLexer::F16},         {"bf16", TmLexer::BF16},     {"f32", TmLexer::F32},
      {"f64", TmLexer::F64},         {"int", TmLexer::INT},
  };
  return keywords;
}

struct Operator {
  std::string_view text;
  size_t type;
};

// Longest first, so that the first match is the longest.
constexpr std::array<Operator, 43> kOperators = {{
    {"<<=", TmLexer::SHL_ASSIGN}, {">>=", TmLexer::SHR_ASSIGN}, {"->", TmLexer::ARROW},
    {"+=", TmLexer::PLUS_ASSIGN}, {"-=", TmLexer::MINUS_ASSIGN}, {"*=", TmLexer::STAR_ASSIGN},
    {"/=", TmLexer::SLASH_ASSIGN}, {"%=", TmLexer::PERCENT_ASSIGN}, {"&=", TmLexer::AMP_ASSIGN},
    {"|=", TmLexer::PIPE_ASSIGN}, {"^=", TmLexer::CARET_ASSIGN}, {"<<", TmLexer::SHL},
    {">>", TmLexer::SHR}, {"<=", TmLexer::LE}, {">=", TmLexer::GE},
    {"==", TmLexer::EQ}, {"!=", TmLexer::NE}, {"&&", TmLexer::ANDAND},
    {"||", TmLexer::OROR}, {"<", TmLexer::LT}, {">", TmLexer::GT},
    {"=", TmLexer::ASSIGN}, {"+", TmLexer::PLUS}, {"-", TmLexer::MINUS},
    {"*", TmLexer::STAR}, {"/", TmLexer::SLASH}, {"%", TmLexer::PERCENT},
    {"&", TmLexer::AMP}, {"|", TmLexer::PIPE}, {"^", TmLexer::CARET},
    {"!", TmLexer::NOT}, {"~", TmLexer::TILDE}, {"?", TmLexer::QUESTION},
    {":", TmLexer::COLON}, {";", TmLexer::SEMI}, {",", TmLexer::COMMA},
    {".", TmLexer::DOT}, {"(", TmLexer::LPAREN}, {")", TmLexer::RPAREN},
    {"[", TmLexer::LBRACK}, {"]", TmLexer::RBRACK}, {"{", TmLexer::LBRACE},
    {"}", TmLexer::RBRACE},
}};

constexpr size_t kNone = static_cast<size_t>(-1);

}  // namespace

TmInputStream::TmInputStream(std::string_view valid_utf8) {
  _data.resize(valid_utf8.size());  // at most one code point per byte
  size_t n = 0;
  for (size_t pos = 0; pos < valid_utf8.size(); ++n) {
    auto byte = static_cast<unsigned char>(valid_utf8[pos]);
    _data[n] = byte < 0x80 ? (++pos, byte) : static_cast<char32_t>(DecodeUtf8(valid_utf8, pos));
  }
  _data.resize(n);
}

TmTokenSource::TmTokenSource(antlr4::CharStream* input)
    : input_(input), factory_(antlr4::CommonTokenFactory::DEFAULT.get()), size_(input->size()) {
  if (auto* own = dynamic_cast<TmInputStream*>(input)) {
    text_ = own->CodePoints();
    // A byte-order mark starts no token and moves no column (ANTLR's
    // input stream drops it; TmInputStream keeps it, so that token
    // indices count the code points of the file as CodePointMap does).
    if (!text_.empty() && text_[0] == 0xFEFF) pos_ = 1;
    return;
  }
  // LA is relative to the stream's index, which stays at 0: the tokens
  // refer to the stream by absolute position, which is never consumed.
  owned_.resize(size_);
  for (size_t i = 0; i < size_; ++i) owned_[i] = static_cast<char32_t>(input_->LA(static_cast<ssize_t>(i) + 1));
  text_ = owned_;
}

size_t TmTokenSource::At(size_t i) const { return i < size_ ? text_[i] : 0; }

void TmTokenSource::Advance(size_t to) {
  for (; pos_ < to; ++pos_) {
    if (At(pos_) == '\n') {
      ++line_;
      column_ = 0;
    } else {
      ++column_;
    }
  }
}

// FLOAT_LIT and INT_LIT: the end of the longest number at `start` (a
// digit), and its type.
size_t TmTokenSource::NumberEnd(size_t start, size_t* type) const {
  auto digits = [&](size_t p) {  // DIGITS : [0-9] [0-9_]*
    if (!IsDigit(At(p))) return kNone;
    for (++p; IsDigit(At(p)) || At(p) == '_'; ++p) {}
    return p;
  };
  auto exponent = [&](size_t p) {  // EXPONENT : [eE] [+-]? [0-9]+
    if (At(p) != 'e' && At(p) != 'E') return kNone;
    ++p;
    if (At(p) == '+' || At(p) == '-') ++p;
    if (!IsDigit(At(p))) return kNone;
    for (; IsDigit(At(p)); ++p) {}
    return p;
  };
  auto suffix = [&](size_t p, bool no_hex) {  // SUFFIX?, SUFFIX_NOHEX?
    size_t c = At(p);
    bool starts = no_hex ? IsLetter(c) && !IsHexDigit(c) : IsLetter(c);
    if (!starts) return p;
    for (++p; IsLetter(At(p)) || IsDigit(At(p)); ++p) {}
    return p;
  };
  auto longest = [](size_t a, size_t b) { return a == kNone ? b : b == kNone ? a : std::max(a, b); };

  size_t whole = digits(start);
  // FLOAT_LIT : DIGITS '.' DIGITS EXPONENT? SUFFIX? | DIGITS EXPONENT SUFFIX?
  size_t real = kNone;
  if (At(whole) == '.' && IsDigit(At(whole + 1))) {
    size_t fraction = digits(whole + 1);
    size_t with_exponent = exponent(fraction);
    real = longest(suffix(fraction, false), with_exponent == kNone ? kNone : suffix(with_exponent, false));
  }
  if (size_t e = exponent(whole); e != kNone) real = longest(real, suffix(e, false));
  // INT_LIT : hexadecimal SUFFIX_NOHEX? | binary SUFFIX? | DIGITS SUFFIX?
  size_t integer = suffix(whole, false);
  if (At(start) == '0' && (At(start + 1) == 'x' || At(start + 1) == 'X') && IsHexDigit(At(start + 2))) {
    size_t p = start + 3;
    for (; IsHexDigit(At(p)) || At(p) == '_'; ++p) {}
    integer = longest(integer, suffix(p, true));
  }
  if (At(start) == '0' && (At(start + 1) == 'b' || At(start + 1) == 'B') && (At(start + 2) == '0' || At(start + 2) == '1')) {
    size_t p = start + 3;
    for (; At(p) == '0' || At(p) == '1' || At(p) == '_'; ++p) {}
    integer = longest(integer, suffix(p, false));
  }
  // FLOAT_LIT comes first in the grammar: it wins a tie.
  if (real != kNone && real >= integer) {
    *type = TmLexer::FLOAT_LIT;
    return real;
  }
  *type = TmLexer::INT_LIT;
  return integer;
}

size_t TmTokenSource::OperatorEnd(size_t start, size_t* type) const {
  for (const Operator& op : kOperators) {
    if (At(start) != static_cast<unsigned char>(op.text[0])) continue;
    size_t i = 1;
    while (i < op.text.size() && At(start + i) == static_cast<unsigned char>(op.text[i])) ++i;
    if (i == op.text.size()) {
      *type = op.type;
      return start + i;
    }
  }
  return kNone;
}

TmTokenSource::Lexeme TmTokenSource::Lex(bool keywords) {
  for (;;) {
    size_t start = pos_, line = line_, column = column_;
    auto token = [&](size_t type, size_t end) {
      Advance(end);
      return Lexeme{type, start, end, line, column};
    };
    if (pos_ >= size_) return token(antlr4::Token::EOF, pos_);  // stop = start - 1, as ANTLR's EOF
    size_t c = At(pos_);
    if (IsSpace(c)) {  // WS : [ \t\r\n\f]+ -> skip
      size_t end = pos_;
      while (end < size_ && IsSpace(At(end))) ++end;
      Advance(end);
      continue;
    }
    if (c == '/' && At(pos_ + 1) == '/') {  // LINE_COMMENT : '//' ~[\n]* -> skip
      size_t end = pos_ + 2;
      while (end < size_ && At(end) != '\n') ++end;
      Advance(end);
      continue;
    }
    if (c == '/' && At(pos_ + 1) == '*') {  // BLOCK_COMMENT : '/*' .*? '*/' -> skip
      size_t end = pos_ + 2;
      while (end + 1 < size_ && !(At(end) == '*' && At(end + 1) == '/')) ++end;
      if (end + 1 < size_) {
        Advance(end + 2);
        continue;
      }
      // UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF (no '*/')
      return token(TmLexer::UNTERMINATED_COMMENT, size_);
    }
    if (IsIdStart(c)) {  // keywords, then ID : [a-zA-Z_] [a-zA-Z_0-9]*
      size_t end = pos_ + 1;
      while (IsIdPart(At(end))) ++end;
      if (!keywords) return token(TmLexer::ID, end);
      std::string text;
      for (size_t i = pos_; i < end; ++i) text += static_cast<char>(At(i));
      auto keyword = Keywords().find(text);
      return token(keyword == Keywords().end() ? static_cast<size_t>(TmLexer::ID) : keyword->second, end);
    }
    size_t type = 0;
    if (IsDigit(c)) {
      size_t end = NumberEnd(pos_, &type);
      return token(type, end);
    }
    if (size_t end = OperatorEnd(pos_, &type); end != kNone) return token(type, end);
    return token(TmLexer::ERROR_CHAR, pos_ + 1);  // ERROR_CHAR : .
  }
}

std::unique_ptr<antlr4::Token> TmTokenSource::Make(const Lexeme& l) {
  return factory_->create({this, input_}, l.type, "", antlr4::Token::DEFAULT_CHANNEL, l.start, l.end - 1, l.line,
                          l.column);
}

std::unique_ptr<antlr4::Token> TmTokenSource::nextToken() { return Make(Lex(/*keywords=*/true)); }

}  // namespace tmc
