/**
 * Which tree-sitter node types are symbols, and of what kind, per language.
 * The grammars are the official packages' prebuilt `.wasm` files, vendored
 * in grammars/ (see `grammarWasm`): no native build, nothing downloaded
 * at run time.
 */

export type SymbolKind =
  | "function"
  | "method"
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "struct"
  | "trait"
  | "impl"
  | "module"
  | "variable"
  | "property"
  | "macro"
  | "heading";

/** Kinds whose nested functions are methods. */
export const CLASS_LIKE_KINDS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(["class", "interface", "struct", "trait", "impl", "enum"]);

export interface GrammarSpec {
  /** The grammar's file in grammars/. */
  wasm: string;
  /** Node type → symbol kind. */
  definitions: Record<string, SymbolKind>;
  comments: string[];
  /**
   * Query patterns for definitions that only count in some places (top-level
   * variables); node types listed here are left out of the plain pattern.
   */
  contextualPatterns?: string[];
}

const JS_DEFINITIONS: Record<string, SymbolKind> = {
  function_declaration: "function",
  generator_function_declaration: "function",
  class_declaration: "class",
  method_definition: "method",
  lexical_declaration: "variable",
  variable_declaration: "variable",
};

const TS_DEFINITIONS: Record<string, SymbolKind> = {
  ...JS_DEFINITIONS,
  abstract_class_declaration: "class",
  interface_declaration: "interface",
  type_alias_declaration: "type",
  enum_declaration: "enum",
  internal_module: "module",
  module: "module",
  function_signature: "function",
  method_signature: "method",
  abstract_method_signature: "method",
};

const JS_TOP_LEVEL_VARIABLES = [
  "(program [(lexical_declaration) (variable_declaration)] @def)",
  "(export_statement [(lexical_declaration) (variable_declaration)] @def)",
];

const C_DEFINITIONS: Record<string, SymbolKind> = {
  function_definition: "function",
  struct_specifier: "struct",
  union_specifier: "struct",
  enum_specifier: "enum",
  type_definition: "type",
  declaration: "variable",
};

/** File-scope declarations, also inside include guards. */
const C_TOP_LEVEL_DECLARATIONS = ["translation_unit", "preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif"].map(
  (parent) => `(${parent} (declaration) @def)`,
);

export const GRAMMARS: Record<string, GrammarSpec> = {
  javascript: {
    wasm: "tree-sitter-javascript.wasm",
    definitions: JS_DEFINITIONS,
    comments: ["comment"],
    contextualPatterns: JS_TOP_LEVEL_VARIABLES,
  },
  typescript: {
    wasm: "tree-sitter-typescript.wasm",
    definitions: TS_DEFINITIONS,
    comments: ["comment"],
    contextualPatterns: JS_TOP_LEVEL_VARIABLES,
  },
  tsx: {
    wasm: "tree-sitter-tsx.wasm",
    definitions: TS_DEFINITIONS,
    comments: ["comment"],
    contextualPatterns: JS_TOP_LEVEL_VARIABLES,
  },
  python: {
    wasm: "tree-sitter-python.wasm",
    definitions: { class_definition: "class", function_definition: "function", expression_statement: "variable" },
    comments: ["comment"],
    contextualPatterns: ["(module (expression_statement (assignment)) @def)"],
  },
  go: {
    wasm: "tree-sitter-go.wasm",
    definitions: {
      function_declaration: "function",
      method_declaration: "method",
      type_spec: "type",
      type_alias: "type",
      const_spec: "variable",
      var_spec: "variable",
    },
    comments: ["comment"],
    contextualPatterns: [
      "(source_file (const_declaration (const_spec) @def))",
      "(source_file (var_declaration (var_spec) @def))",
      "(source_file (var_declaration (var_spec_list (var_spec) @def)))",
    ],
  },
  rust: {
    wasm: "tree-sitter-rust.wasm",
    definitions: {
      function_item: "function",
      function_signature_item: "function",
      struct_item: "struct",
      union_item: "struct",
      enum_item: "enum",
      trait_item: "trait",
      impl_item: "impl",
      mod_item: "module",
      type_item: "type",
      const_item: "variable",
      static_item: "variable",
      macro_definition: "macro",
    },
    comments: ["line_comment", "block_comment"],
  },
  java: {
    wasm: "tree-sitter-java.wasm",
    definitions: {
      class_declaration: "class",
      record_declaration: "class",
      interface_declaration: "interface",
      annotation_type_declaration: "interface",
      enum_declaration: "enum",
      method_declaration: "method",
      constructor_declaration: "method",
    },
    comments: ["line_comment", "block_comment"],
  },
  c: {
    wasm: "tree-sitter-c.wasm",
    definitions: C_DEFINITIONS,
    comments: ["comment"],
    contextualPatterns: C_TOP_LEVEL_DECLARATIONS,
  },
  cpp: {
    wasm: "tree-sitter-cpp.wasm",
    definitions: {
      ...C_DEFINITIONS,
      class_specifier: "class",
      namespace_definition: "module",
      field_declaration: "method",
    },
    comments: ["comment"],
    contextualPatterns: [...C_TOP_LEVEL_DECLARATIONS, "(declaration_list (declaration) @def)"],
  },
  csharp: {
    wasm: "tree-sitter-c_sharp.wasm",
    definitions: {
      class_declaration: "class",
      record_declaration: "class",
      interface_declaration: "interface",
      struct_declaration: "struct",
      enum_declaration: "enum",
      namespace_declaration: "module",
      file_scoped_namespace_declaration: "module",
      method_declaration: "method",
      constructor_declaration: "method",
      property_declaration: "property",
      delegate_declaration: "type",
    },
    comments: ["comment"],
  },
  ruby: {
    wasm: "tree-sitter-ruby.wasm",
    definitions: { class: "class", module: "module", method: "method", singleton_method: "method" },
    comments: ["comment"],
  },
  php: {
    wasm: "tree-sitter-php.wasm",
    definitions: {
      class_declaration: "class",
      interface_declaration: "interface",
      trait_declaration: "trait",
      enum_declaration: "enum",
      function_definition: "function",
      method_declaration: "method",
      namespace_definition: "module",
    },
    comments: ["comment"],
  },
  bash: {
    wasm: "tree-sitter-bash.wasm",
    definitions: { function_definition: "function" },
    comments: ["comment"],
  },
};

/** One query per language: definitions captured as `@def`, comments as `@comment`. */
export function querySource(spec: GrammarSpec): string {
  const contextual = spec.contextualPatterns ?? [];
  const plain = Object.entries(spec.definitions)
    .filter(([, kind]) => !(contextual.length > 0 && kind === "variable"))
    .map(([type]) => `(${type})`);
  const parts: string[] = [];
  if (plain.length > 0) parts.push(`[${plain.join(" ")}] @def`);
  parts.push(...contextual);
  parts.push(`[${spec.comments.map((type) => `(${type})`).join(" ")}] @comment`);
  return parts.join("\n");
}
