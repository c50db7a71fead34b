// A token source that leaves out the bodies of a module's kernels: what an
// imported module is parsed with when only the main file's kernels are
// compiled (CompileOptions::skip_imported_kernel_bodies), and the main file
// when only one of its kernels is (CompileOptions::main_kernel_only, which
// keeps that one's body). The importer needs an imported module's ops,
// functions, constants and graphs, and of its kernels only their
// signatures (the -D parameters, `implements`); their bodies were most of
// the parse and the check of a module such as std.attention (~6% of
// compiling std.hopper_attention's kernel, and 3.5% of compiling one of
// std.attention's own two kernels).
//
// Each top-level `kernel ... { BODY }` reaches the parser as
// `kernel ... { }`; the skipped bodies are listed by the start index of
// their `{`. Tokens that are errors in themselves (bad characters, an
// unterminated comment, the end of the file) are passed on from inside a
// body, so that those lexical errors are reported as without skipping;
// what only the parser, the syntax tree's builder (bad literal suffixes,
// values out of range) or the nesting screen would find in a body is not.
// A body that the file ends in before its `}` sets unbalanced(): the
// caller parses the file again without skipping, for the usual syntax
// error.
#pragma once

#include <antlr4-runtime.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "frontend/parse/token_source.h"

namespace tmc {

class KernelBodySkipper : public antlr4::TokenSource {
 public:
  /// `keep`: the name of a kernel whose body passes (none if empty).
  KernelBodySkipper(TmTokenSource* inner, std::string keep) : inner_(inner), keep_(std::move(keep)) {}

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return inner_->getLine(); }
  size_t getCharPositionInLine() override { return inner_->getCharPositionInLine(); }
  antlr4::CharStream* getInputStream() override { return inner_->getInputStream(); }
  std::string getSourceName() override { return inner_->getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override { return inner_->getTokenFactory(); }

  /// The start indices of the `{` of the bodies left out, in order.
  const std::vector<size_t>& skipped() const { return skipped_; }
  /// Whether the file ended inside a body.
  bool unbalanced() const { return unbalanced_; }

 private:
  void SkipBody();  // after a body's `{`: queues what passes, up to its `}`

  TmTokenSource* inner_;
  std::string keep_;
  std::deque<std::unique_ptr<antlr4::Token>> queued_;
  std::vector<size_t> skipped_;
  bool unbalanced_ = false;
  unsigned depth_ = 0;        // braces open at the top level (op and graph bodies)
  bool in_signature_ = false;  // after a top-level `kernel`, before its body
  bool at_name_ = false;       // right after that `kernel`
  unsigned brackets_ = 0;     // ( and [ open in that signature
};

}  // namespace tmc
