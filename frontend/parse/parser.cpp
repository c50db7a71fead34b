// Drives ANTLR: validates UTF-8, lexes (token_source.h), screens tokens (bad characters,
// unterminated comments, nesting depth), parses with our error listener, and
// hands the tree to the AST builder.
#include "frontend/parse/parser.h"

#include <TmLexer.h>
#include <TmParser.h>
#include <antlr4-runtime.h>

#include "frontend/parse/ast_builder.h"
#include "frontend/parse/kernel_body_skipper.h"
#include "frontend/parse/syntax_errors.h"
#include "frontend/parse/token_source.h"
#include "support/utf8.h"

namespace tmc {
namespace {

using grammar::TmLexer;
using grammar::TmParser;

/// Thrown from inside the parser to abandon a parse that nests too deeply.
struct NestingTooDeep {
  antlr4::Token* at;
};

/// TmParser counting its rule nesting and aborting past the limit, so that
/// inputs such as 100,000 unary minus signs cannot overflow the stack.
/// ANTLR reports each rule's entry and exit only while a parse listener is
/// registered (RuleEvents below); these overrides take the reports in place
/// of Parser's, which would also offer each one to the rule's context as a
/// TmListener event (a dynamic_cast that fails). A rule's context joins its
/// parent's children without Parser's dynamic_cast of the parent either:
/// a parser's contexts are all ParserRuleContexts.
class DepthLimitedParser : public TmParser {
 public:
  DepthLimitedParser(antlr4::TokenStream* tokens, unsigned limit) : TmParser(tokens), limit_(limit) {}
  void reset() override {
    TmParser::reset();
    depth_ = 0;
  }

 protected:
  void triggerEnterRuleEvent() override {
    if (++depth_ > limit_) throw NestingTooDeep{getCurrentToken()};
  }
  void triggerExitRuleEvent() override { --depth_; }
  void addContextToParseTree() override {
    if (_ctx->parent) static_cast<antlr4::ParserRuleContext*>(_ctx->parent)->addChild(_ctx);
  }

 private:
  unsigned depth_ = 0;
  unsigned limit_;
};

/// Registered only so that the parser reports rule entries and exits to
/// DepthLimitedParser (which takes those reports itself); the parser also
/// shows it each token it consumes.
class RuleEvents : public antlr4::tree::ParseTreeListener {
 public:
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}
  void enterEveryRule(antlr4::ParserRuleContext*) override {}
  void exitEveryRule(antlr4::ParserRuleContext*) override {}
};

/// CommonTokenStream numbering each token it fetches without asking the
/// token's type: tmc's token sources (TmTokenSource, KernelBodySkipper)
/// make CommonTokens, through their CommonTokenFactory. ANTLR's own fetch
/// casts each token to WritableToken, a dynamic_cast across its class
/// hierarchy per token.
class TmTokenStream : public antlr4::CommonTokenStream {
 public:
  using antlr4::CommonTokenStream::CommonTokenStream;

 protected:
  size_t fetch(size_t n) override {
    if (_fetchedEOF) return 0;
    for (size_t i = 0; i < n;) {
      std::unique_ptr<antlr4::Token> t = _tokenSource->nextToken();
      static_cast<antlr4::CommonToken*>(t.get())->setTokenIndex(_tokens.size());
      bool eof = t->getType() == antlr4::Token::EOF;
      _tokens.push_back(std::move(t));
      ++i;
      if (eof) {
        _fetchedEOF = true;
        return i;
      }
    }
    return n;
  }
};

char32_t FirstCodePoint(std::string_view text) {
  size_t pos = 0;
  return text.empty() ? 0 : DecodeUtf8(text, pos);
}

}  // namespace

std::unique_ptr<ast::Module> ParseFile(uint32_t file_id, DiagnosticEngine& diags,
                                       const ParseOptions& options) {
  const SourceManager& sm = diags.sources();
  std::string_view text = sm.Contents(file_id);
  if (auto bad = FindInvalidUtf8(text)) {
    diags.Report(SourceRange{sm.Loc(file_id, static_cast<uint32_t>(*bad)),
                             sm.Loc(file_id, static_cast<uint32_t>(*bad + 1))},
                 DiagKind::InvalidUtf8, static_cast<unsigned>(static_cast<unsigned char>(text[*bad])));
    return nullptr;
  }
  CodePointMap cp_map(text);
  TokenLocator locate{sm, file_id, cp_map};

  TmInputStream input(text);
  TmTokenSource lexer(&input);
  KernelBodySkipper skipper(&lexer, options.keep_kernel_body);
  TmTokenStream tokens(options.skip_kernel_bodies ? static_cast<antlr4::TokenSource*>(&skipper) : &lexer);
  tokens.fill();
  if (skipper.unbalanced()) {  // a kernel's body runs to the end: the usual syntax error
    ParseOptions whole = options;
    whole.skip_kernel_bodies = false;
    return ParseFile(file_id, diags, whole);
  }

  // Screen the tokens: bad characters and unterminated comments are
  // reported here, each once.
  bool lexical_errors = false;
  unsigned depth = 0;
  for (antlr4::Token* tok : tokens.getTokens()) {
    switch (tok->getType()) {
      case TmLexer::ERROR_CHAR: {
        lexical_errors = true;
        char32_t cp = FirstCodePoint(sm.Text(locate.Range(tok)));
        if (cp >= 0x20 && cp < 0x7F)
          diags.Report(locate.Range(tok), DiagKind::InvalidCharacter,
                       std::string(1, static_cast<char>(cp)));
        else
          diags.Report(locate.Range(tok), DiagKind::InvalidCodePoint, static_cast<unsigned>(cp));
        break;
      }
      case TmLexer::UNTERMINATED_COMMENT:
        lexical_errors = true;
        diags.Report(locate.Range(tok).begin.IsValid()
                         ? SourceRange{locate.Range(tok).begin,
                                       SourceLoc{locate.Range(tok).begin.offset + 2}}
                         : SourceRange{},
                     DiagKind::UnterminatedComment);
        break;
      case TmLexer::LPAREN:
      case TmLexer::LBRACK:
      case TmLexer::LBRACE:
        if (++depth > options.max_bracket_depth) {
          diags.Report(locate.Range(tok), DiagKind::NestingTooDeep, options.max_bracket_depth);
          return nullptr;
        }
        break;
      case TmLexer::RPAREN:
      case TmLexer::RBRACK:
      case TmLexer::RBRACE:
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
    if (diags.ShouldStop()) return nullptr;
  }

  // A file with lexical errors is not parsed: the parser would only report
  // the holes that the bad characters left.
  if (lexical_errors) return nullptr;

  DepthLimitedParser parser(&tokens, options.max_rule_depth);
  parser.removeErrorListeners();
  SyntaxErrorListener listener(diags, locate);
  parser.addErrorListener(&listener);
  RuleEvents events;
  parser.addParseListener(&events);

  // Two-stage parsing, as ANTLR recommends: the fast SLL prediction mode
  // with no recovery first; only a file that fails it (a syntax error, or
  // one of the rare inputs that need full-context prediction) is parsed
  // again in LL mode with error recovery and our diagnostics.
  TmParser::TranslationUnitContext* tree = nullptr;
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  parser.removeErrorListeners();
  try {
    tree = parser.translationUnit();
  } catch (const antlr4::ParseCancellationException&) {
    tree = nullptr;
  } catch (const NestingTooDeep& deep) {
    diags.Report(locate.Range(deep.at), DiagKind::NestingTooDeep, options.max_rule_depth);
    return nullptr;
  }
  if (tree) return BuildAst(tree, file_id, diags, locate, options.max_expr_depth, skipper.skipped());

  tokens.seek(0);
  parser.reset();  // keeps the parse listeners: `events` stays registered
  parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  parser.addErrorListener(&listener);
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::LL);
  try {
    tree = parser.translationUnit();
  } catch (const NestingTooDeep& deep) {
    diags.Report(locate.Range(deep.at), DiagKind::NestingTooDeep, options.max_rule_depth);
    return nullptr;
  } catch (const antlr4::ParseCancellationException&) {
    return nullptr;  // the error limit was reached; already reported
  }
  if (listener.errors() > 0 || diags.ShouldStop()) return nullptr;
  return BuildAst(tree, file_id, diags, locate, options.max_expr_depth, skipper.skipped());
}

}  // namespace tmc
