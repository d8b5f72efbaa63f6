// Walking the parser's tree.
import type { PromNode } from './parser.js';

export type SelectorNode = PromNode & { kind: 'selector' };
export type CallNode = PromNode & { kind: 'call' };

export function children(node: PromNode): PromNode[] {
  switch (node.kind) {
    case 'call':
      return node.args;
    case 'aggregate':
      return node.param ? [node.param, node.expr] : [node.expr];
    case 'binary':
      return [node.left, node.right];
    case 'unary':
    case 'paren':
    case 'subquery':
      return [node.expr];
    default:
      return [];
  }
}

/** An expression without the parentheses around it. */
export function unparenthesized(node: PromNode): PromNode {
  let inner = node;
  while (inner.kind === 'paren') inner = inner.expr;
  return inner;
}
