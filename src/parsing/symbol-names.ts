import type { Node } from "web-tree-sitter";
import type { SymbolKind } from "./grammar-specs.js";

const TOP_LEVEL_PARENTS = new Set(["program", "export_statement", "module", "source_file", "translation_unit"]);
const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);
const C_IDENTIFIER = /identifier$|^operator_name$|^destructor_name$|^qualified_identifier$|^name$/;

/**
 * The name and final kind of a captured definition node, or `undefined` when
 * the node is not a symbol after all (a nested variable, a `struct S x;` use).
 */
export function nameAndKind(language: string, node: Node, kind: SymbolKind): [string, SymbolKind] | undefined {
  // The parent is asked for only where it decides (a variable's place): tree-sitter finds a node's parent by a walk down from the root.
  switch (language) {
    case "javascript":
    case "typescript":
    case "tsx":
      if (kind === "variable") return jsVariable(node, node.parent?.type);
      break;
    case "python":
      if (kind === "variable") {
        if (node.parent?.type !== "module") return undefined;
        const assignment = node.firstNamedChild;
        if (assignment?.type !== "assignment") return undefined;
        const left = assignment.childForFieldName("left");
        return left?.type === "identifier" ? [left.text, "variable"] : undefined;
      }
      break;
    case "go":
      if (node.type === "type_spec") {
        const type = node.childForFieldName("type")?.type;
        kind = type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : "type";
      }
      break;
    case "rust":
      if (node.type === "impl_item") {
        const type = node.childForFieldName("type")?.text;
        const trait = node.childForFieldName("trait")?.text;
        return type ? [trait ? `${trait} for ${type}` : type, "impl"] : undefined;
      }
      break;
    case "c":
    case "cpp":
      return cDefinition(node, kind);
  }
  const name = node.childForFieldName("name");
  return name ? [name.text, kind] : undefined;
}

function jsVariable(node: Node, parentType: string | undefined): [string, SymbolKind] | undefined {
  if (!parentType || !TOP_LEVEL_PARENTS.has(parentType)) return undefined;
  const declarator = node.namedChildren.find((child) => child?.type === "variable_declarator");
  const name = declarator?.childForFieldName("name");
  if (!declarator || !name || name.type !== "identifier") return undefined;
  const value = declarator.childForFieldName("value");
  const kind: SymbolKind = value && FUNCTION_VALUES.has(value.type) ? "function" : value?.type === "class" ? "class" : "variable";
  return [name.text, kind];
}

function cDefinition(node: Node, kind: SymbolKind): [string, SymbolKind] | undefined {
  switch (node.type) {
    case "function_definition": {
      const name = cDeclaratorName(node.childForFieldName("declarator"));
      return name ? [name, name.includes("::") ? "method" : "function"] : undefined;
    }
    case "declaration": {
      const declarator = node.childForFieldName("declarator");
      const name = cDeclaratorName(declarator);
      return name ? [name, isFunctionDeclarator(declarator) ? "function" : "variable"] : undefined;
    }
    case "type_definition": {
      const name = cDeclaratorName(node.childForFieldName("declarator"));
      return name ? [name, "type"] : undefined;
    }
    case "field_declaration": {
      const declarator = node.childForFieldName("declarator");
      if (!isFunctionDeclarator(declarator)) return undefined;
      const name = cDeclaratorName(declarator);
      return name ? [name, "method"] : undefined;
    }
  }
  if (node.type.endsWith("_specifier") && !node.childForFieldName("body")) return undefined;
  const name = node.childForFieldName("name");
  return name ? [name.text, kind] : undefined;
}

/** Follows C/C++ declarator chains (pointer_declarator → function_declarator → identifier). */
function cDeclaratorName(start: Node | null): string | undefined {
  let node = start;
  for (let depth = 0; node && depth < 8; depth++) {
    if (C_IDENTIFIER.test(node.type)) return node.text;
    node =
      node.childForFieldName("declarator") ??
      node.namedChildren.find((child) => child !== null && /declarator|identifier/.test(child.type)) ??
      null;
  }
  return undefined;
}

function isFunctionDeclarator(start: Node | null): boolean {
  let node = start;
  for (let depth = 0; node && depth < 8; depth++) {
    if (node.type === "function_declarator") {
      // `(*callback)(int)` declares a variable holding a function pointer.
      return node.childForFieldName("declarator")?.type !== "parenthesized_declarator";
    }
    node = node.childForFieldName("declarator");
  }
  return false;
}

/** A Python docstring: the first statement of a body when it is a string. */
export function pythonDocstring(body: Node | null): string | undefined {
  let first = body?.firstNamedChild ?? null;
  while (first?.type === "comment") first = first.nextNamedSibling;
  if (first?.type === "expression_statement" && first.firstNamedChild?.type === "string") {
    return first.firstNamedChild.text;
  }
  return undefined;
}
