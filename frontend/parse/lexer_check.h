// A check of frontend/parse/'s hand-written lexer (token_source.h) against
// ANTLR's generated one, for the unit tests; no ANTLR type in sight.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tmc {

/// Lexes `text` with both lexers (tmc's over ANTLR's input stream and, for
/// valid UTF-8, over TmInputStream, as the parser does); the first token where they differ
/// (type, start, stop, line, column or text), described, or nullopt when
/// they agree up to the end of the text.
std::optional<std::string> CompareWithGeneratedLexer(std::string_view text);

}  // namespace tmc
