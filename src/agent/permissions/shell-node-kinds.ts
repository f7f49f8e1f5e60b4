/**
 * How the command walker reads tree-sitter-bash's node kinds: what only
 * groups statements, what is a word or an expression, what redirects, and
 * which command names are bash keywords. A kind in none of these sets is a
 * construct the walker does not judge.
 */

/** Nodes that only group statements: their children are walked as they are. */
export const STRUCTURE: ReadonlySet<string> = new Set([
  "program",
  "list",
  "pipeline",
  "subshell",
  "compound_statement",
  "do_group",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "case_statement",
  "case_item",
  "negated_command",
  "c_style_for_statement",
  "test_command",
  "comment",
]);

/** Nodes of words and expressions: they run nothing themselves, but may hold substitutions that do. */
export const EXPRESSIONS: ReadonlySet<string> = new Set([
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "number",
  "concatenation",
  "simple_expansion",
  "expansion",
  "arithmetic_expansion",
  "brace_expression",
  "array",
  "subscript",
  "binary_expression",
  "unary_expression",
  "ternary_expression",
  "postfix_expression",
  "parenthesized_expression",
  "variable_name",
  "special_variable_name",
  "test_operator",
  "string_content",
  "regex",
  "extglob_pattern",
  "heredoc_content",
  "heredoc_body",
  "heredoc_start",
  "heredoc_end",
  "file_descriptor",
  "command_name",
]);

export const REDIRECTS: ReadonlySet<string> = new Set(["file_redirect", "herestring_redirect", "heredoc_redirect"]);

/**
 * Bash's reserved words. As a command's name they mean tree-sitter read
 * the line differently from bash (`! if rm x; then …` comes out as a
 * command named `if`, where bash runs `rm x`).
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "!",
  "case",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "until",
  "while",
  "{",
  "}",
  "[[",
  "]]",
]);
