// The .tm language: tensor operators and kernels scheduled with task mappings.
// docs/language.md is the normative reference; this grammar is its syntax.
// CMake runs ANTLR on this file at build time; the generated parser is never
// committed. Only frontend/parse/ includes the generated headers.
grammar Tm;

// ---------------------------------------------------------------- modules
translationUnit : importDecl* topDecl* EOF ;

importDecl : IMPORT qualifiedName SEMI ;
qualifiedName : ID (DOT ID)* ;

topDecl
  : opDecl
  | kernelDecl
  | funcDecl
  | graphDecl
  | constDecl
  ;

// A module-level compile-time constant (an integer, a bool or a task mapping).
constDecl : LET ID (COLON type_)? ASSIGN expr SEMI ;

// A function parameter may be a shared tensor (`s: shared f16[64, 32]`) or
// a register fragment `by` a mapping (docs/language.md, §12).
param : ID COLON SHARED? type_ (BY expr)? ;
paramList : param (COMMA param)* ;

// ---------------------------------------------------------------- ops
// `op name<T, U>(...)`: type parameters stand for floating-point types.
// One result `-> T[...]` (defined as `out`), or named results
// `-> (Y: T[...], mean: T[...])`, each defined once.
opDecl : OP ID typeParams? LPAREN inputs=paramList? RPAREN ARROW (type_ | LPAREN results=paramList RPAREN)
         LBRACE opStmt* RBRACE ;
typeParams : LT ID (COMMA ID)* GT ;

opStmt
  : LET ID (LBRACK idList RBRACK)? ASSIGN expr SEMI   # opLet
  | ID (LBRACK idList RBRACK)? ASSIGN expr SEMI       # opOut
  ;
idList : ID (COMMA ID)* ;

// ---------------------------------------------------------------- kernels
kernelDecl : KERNEL ID ctParamList? LPAREN paramList? RPAREN kernelClause* block ;

ctParamList : LT ctParam (COMMA ctParam)* GT ;
// The default is a primary expression (or one in parentheses) so that '>'
// closes the list. An element-type parameter (`T: type`) takes scalar types
// as values.
ctParam : ID COLON type_ (IN LBRACK ctValue (COMMA ctValue)* RBRACK)? (ASSIGN (scalarType | primary | paren))? ;
ctValue : scalarType | expr ;

kernelClause
  : IMPLEMENTS ID                      # implementsClause
  | WHERE cond (COMMA cond)*           # whereClause
  | ID LPAREN exprList RPAREN          # launchClause   // grid(...) or block(...)
  ;

// ---------------------------------------------------------------- funcs, graphs
funcDecl : FUNC ID LPAREN paramList? RPAREN (ARROW type_)? block ;
// One result `-> T[...]`, or named results `-> (y: T[...], s: T[...])`
// returned in order (`return a, b;`).
graphDecl : GRAPH ID LPAREN inputs=paramList? RPAREN ARROW (type_ | LPAREN results=paramList RPAREN) block ;

// ---------------------------------------------------------------- types
// An element type is a scalar type or, in a generic op, a type parameter.
type_ : (scalarType | ID) (LBRACK exprList? RBRACK layout?)? ;
scalarType : BOOL | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64
           | F16 | BF16 | F32 | F64 | INT ;
// row_major, col_major, strided(...), swizzle(...): checked by name in sema.
layout : ID (LPAREN exprList? RPAREN)? ;

// ---------------------------------------------------------------- statements
block : LBRACE stmt* RBRACE ;

stmt
  : LET ID (COLON type_)? ASSIGN expr SEMI                   # letStmt
  | VAR ID (COLON type_)? (ASSIGN expr)? SEMI                # varStmt
  | SHARED ID COLON type_ SEMI                               # sharedStmt
  | REGISTER ID COLON type_ (BY expr)? SEMI                  # registerStmt
  | ifStatement                                              # ifStmt
  | FOR forVars IN expr (ON expr)? block                     # forStmt
  | WHILE LPAREN expr RPAREN block                           # whileStmt
  | BREAK SEMI                                               # breakStmt
  | CONTINUE SEMI                                            # continueStmt
  | RETURN (expr (COMMA expr)*)? SEMI                                        # returnStmt
  | SYNC SEMI                                                # syncStmt
  | block                                                    # blockStmt
  // An assignment or an expression: one alternative, so that the parser
  // decides on the token after the first expression (an assignment
  // operator or ';') instead of scanning ahead through it.
  | expr (assignOp expr)? SEMI                               # exprStmt
  ;

ifStatement : IF LPAREN expr RPAREN block (ELSE (block | ifStatement))? ;

forVars : ID | LPAREN ID (COMMA ID)* RPAREN ;

assignOp
  : ASSIGN | PLUS_ASSIGN | MINUS_ASSIGN | STAR_ASSIGN | SLASH_ASSIGN
  | PERCENT_ASSIGN | AMP_ASSIGN | PIPE_ASSIGN | CARET_ASSIGN
  | SHL_ASSIGN | SHR_ASSIGN
  ;

// ---------------------------------------------------------------- expressions
// An expression is read flat: operands separated by binary operators, then
// an optional `? :`. The AST builder groups the operands by the operators'
// precedence, as in C (* / % over + - over << >> over < <= > >= over == !=
// over & over ^ over | over && over ||, each left-associative); `c ? a : b`
// binds looser and associates to the right. Flat, the parser decides every
// step on the next token: a left-recursive rule, one alternative per
// precedence level, made ANTLR run its adaptive prediction at every
// operator and operand (a third of the time to parse a file).
//
// A reduction `sum(k < K) body` is a call followed by its body, which
// extends as far right as the expression goes. In the grammar the body is
// juxtaposed: an operand with no operator before it (`juxt`), and the AST
// builder makes everything from there to the end of the expression the body
// of the call before it. A juxtaposed operand does not begin with a sign or a
// parenthesis: `sum(k < K) -x[k]` is the call minus x[k], and `sum(k < K)
// (x[k] + 1)` a call with a second parenthesized argument list (`body`),
// each of which the builder turns into the reduction it means; so no
// decision needs more than one token. Where conditions (`cond`) have no
// juxtaposition, so that a launch clause can follow them: `where f(B)
// grid(...)`.
expr
  : operand (op+=(STAR | SLASH | PERCENT | PLUS | MINUS | SHL | SHR | LT | LE | GT | GE
                 | EQ | NE | AMP | CARET | PIPE | ANDAND | OROR) operand | juxt+=unsignedOperand)*
    (q=QUESTION expr COLON expr)?
  ;

cond
  : operand (op+=(STAR | SLASH | PERCENT | PLUS | MINUS | SHL | SHR | LT | LE | GT | GE
                 | EQ | NE | AMP | CARET | PIPE | ANDAND | OROR) operand)*
    (q=QUESTION expr COLON cond)?
  ;

// A prefix operator binds looser than indexing and member access: -x[i] is
// -(x[i]). The prefixes recurse (so that the parser's depth guard sees them).
operand
  : op=(MINUS | PLUS | NOT | TILDE) operand
  | (primary | paren) (LBRACK exprList RBRACK | DOT ID)*
  ;
unsignedOperand
  : op=(NOT | TILDE) operand
  | primary (LBRACK exprList RBRACK | DOT ID)*
  ;

primary
  : INT_LIT                              # intLit
  | FLOAT_LIT                            # floatLit
  | (TRUE | FALSE)                       # boolLit
  // A name, a call, or a reduction whose body is in parentheses.
  | ID (LPAREN exprList? RPAREN (LPAREN body=expr RPAREN)?)?  # nameOrCallPrimary
  | scalarType LPAREN expr RPAREN        # castPrimary
  ;
paren : LPAREN expr RPAREN ;

exprList : expr (COMMA expr)* ;

// ---------------------------------------------------------------- lexer
IMPORT : 'import' ; OP : 'op' ; KERNEL : 'kernel' ; FUNC : 'func' ;
GRAPH : 'graph' ; LET : 'let' ; VAR : 'var' ; SHARED : 'shared' ;
REGISTER : 'register' ; BY : 'by' ; FOR : 'for' ; IN : 'in' ; ON : 'on' ;
IF : 'if' ; ELSE : 'else' ; WHILE : 'while' ; BREAK : 'break' ;
CONTINUE : 'continue' ; RETURN : 'return' ; SYNC : 'sync' ;
IMPLEMENTS : 'implements' ; WHERE : 'where' ; TRUE : 'true' ; FALSE : 'false' ;

BOOL : 'bool' ; I8 : 'i8' ; I16 : 'i16' ; I32 : 'i32' ; I64 : 'i64' ;
U8 : 'u8' ; U16 : 'u16' ; U32 : 'u32' ; U64 : 'u64' ;
F16 : 'f16' ; BF16 : 'bf16' ; F32 : 'f32' ; F64 : 'f64' ; INT : 'int' ;

ARROW : '->' ;
PLUS_ASSIGN : '+=' ; MINUS_ASSIGN : '-=' ; STAR_ASSIGN : '*=' ; SLASH_ASSIGN : '/=' ;
PERCENT_ASSIGN : '%=' ; AMP_ASSIGN : '&=' ; PIPE_ASSIGN : '|=' ; CARET_ASSIGN : '^=' ;
SHL_ASSIGN : '<<=' ; SHR_ASSIGN : '>>=' ;
SHL : '<<' ; SHR : '>>' ;
LE : '<=' ; GE : '>=' ; EQ : '==' ; NE : '!=' ; ANDAND : '&&' ; OROR : '||' ;
LT : '<' ; GT : '>' ; ASSIGN : '=' ;
PLUS : '+' ; MINUS : '-' ; STAR : '*' ; SLASH : '/' ; PERCENT : '%' ;
AMP : '&' ; PIPE : '|' ; CARET : '^' ; NOT : '!' ; TILDE : '~' ;
QUESTION : '?' ; COLON : ':' ; SEMI : ';' ; COMMA : ',' ; DOT : '.' ;
LPAREN : '(' ; RPAREN : ')' ; LBRACK : '[' ; RBRACK : ']' ;
LBRACE : '{' ; RBRACE : '}' ;

// Comments and whitespace are skipped: --verify-diagnostics reads its
// expectations from the raw text, and nothing else needs them.

// Numbers carry an optional alphabetic suffix (10u32, 1.5f16, 2f); the
// frontend validates the suffix so that a bad one gets a precise diagnostic.
FLOAT_LIT
  : DIGITS '.' DIGITS EXPONENT? SUFFIX?
  | DIGITS EXPONENT SUFFIX?
  ;
INT_LIT
  : ('0x' | '0X') [0-9a-fA-F] [0-9a-fA-F_]* SUFFIX_NOHEX?
  | ('0b' | '0B') [01] [01_]* SUFFIX?
  | DIGITS SUFFIX?
  ;
fragment DIGITS : [0-9] [0-9_]* ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;
fragment SUFFIX : [a-zA-Z] [a-zA-Z0-9]* ;
fragment SUFFIX_NOHEX : [g-zG-Z] [a-zA-Z0-9]* ;

ID : [a-zA-Z_] [a-zA-Z_0-9]* ;

LINE_COMMENT : '//' ~[\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// A '/*' that no '*/' closes: its text up to the end of the file holds no
// '*/' (so that a closed comment is never taken for a longer unterminated one).
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF ;
WS : [ \t\r\n\f]+ -> skip ;

// Anything else is one bad character; the frontend reports it and the parser
// never sees it, so ANTLR's lexer never prints to the console.
ERROR_CHAR : . ;
