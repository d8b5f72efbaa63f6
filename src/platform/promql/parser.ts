// A PromQL parser: Prometheus 2.x's grammar and type rules (selectors with matchers, range and
// subquery brackets, offset and @ modifiers, aggregations with by/without, the function library
// with argument types, binary operators with precedence, bool, on/ignoring and
// group_left/group_right). It gives a typed tree (what the embedded metrics store evaluates) or
// says what is wrong and where (what metric aliases and alert rules are checked with).
import { compileLabelPattern, type LabelPattern } from './label-pattern.js';
import { describe, ExpressionError, tokenize, unquote, type Token } from './lexer.js';
import { AGGREGATIONS, FUNCTIONS, TYPE_NAMES, type ValueType } from './signatures.js';

export { TYPE_NAMES, type ValueType } from './signatures.js';

export interface LabelMatcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** Where `offset` and `@` move an evaluation: milliseconds back, and a fixed time (ms) or the query's start/end. */
export interface TimeModifiers {
  offsetMs: number;
  at?: number | 'start' | 'end';
}

export interface VectorMatching {
  /** `on(...)` (true) or `ignoring(...)` (false); ignoring() with no labels when no clause was written. */
  on: boolean;
  labels: string[];
  card: 'one-to-one' | 'many-to-one' | 'one-to-many';
  /** Labels group_left/group_right copy from the "one" side. */
  include: string[];
}

export type PromNode =
  | { kind: 'number'; type: 'scalar'; value: number }
  | { kind: 'string'; type: 'string'; value: string }
  | ({ kind: 'selector'; type: 'vector' | 'matrix'; name?: string; matchers: LabelMatcher[]; rangeMs?: number } & TimeModifiers)
  | ({ kind: 'subquery'; type: 'matrix'; expr: PromNode; rangeMs: number; stepMs?: number } & TimeModifiers)
  | { kind: 'call'; type: ValueType; name: string; args: PromNode[] }
  | { kind: 'aggregate'; type: 'vector'; op: string; param?: PromNode; expr: PromNode; grouping: string[]; without: boolean }
  | { kind: 'binary'; type: ValueType; op: string; left: PromNode; right: PromNode; bool: boolean; matching?: VectorMatching }
  | { kind: 'unary'; type: ValueType; op: '-' | '+'; expr: PromNode }
  | { kind: 'paren'; type: ValueType; expr: PromNode };

// Precedence of binary operators, lowest first (Prometheus' parser: or < and/unless < comparison < +- < */% atan2 < ^).
const PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<=': 3,
  '<': 3,
  '>=': 3,
  '>': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};
const COMPARISON = new Set(['==', '!=', '<=', '<', '>=', '>']);
const SET_OPERATORS = new Set(['and', 'or', 'unless']);
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless', 'atan2']);

/** Deepest nesting (parentheses, unary signs, function arguments) an expression may have; deeper would overflow the parser's stack. */
export const MAX_EXPRESSION_NESTING = 200;

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): PromNode {
    const node = this.expression(1);
    const next = this.peek();
    if (next.kind !== 'end') throw new ExpressionError(`unexpected ${describe(next)}`, next.pos);
    return node;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private is(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind !== 'string' && token.kind !== 'end' && token.text === text;
  }

  private expect(text: string, context: string): Token {
    const token = this.next();
    if (token.kind === 'string' || token.text !== text) throw new ExpressionError(`expected "${text}" ${context}, found ${describe(token)}`, token.pos);
    return token;
  }

  private binaryOperator(): string | undefined {
    const token = this.peek();
    if (token.kind === 'op' && token.text in PRECEDENCE) return token.text;
    if (token.kind === 'ident' && ['and', 'or', 'unless', 'atan2'].includes(token.text.toLowerCase())) return token.text.toLowerCase();
    return undefined;
  }

  /** Precedence climbing; `^` is right-associative, everything else left. */
  private expression(minPrecedence: number): PromNode {
    this.depth += 1;
    try {
      return this.binaryChain(minPrecedence);
    } finally {
      this.depth -= 1;
    }
  }

  private binaryChain(minPrecedence: number): PromNode {
    if (this.depth > MAX_EXPRESSION_NESTING) throw new ExpressionError(`the expression nests deeper than ${MAX_EXPRESSION_NESTING} levels`, this.peek().pos);
    let left = this.unary();
    for (let op = this.binaryOperator(); op && PRECEDENCE[op]! >= minPrecedence; op = this.binaryOperator()) {
      const at = this.next().pos;
      const bool = this.is('bool') ? (this.next(), true) : false;
      const matching = this.vectorMatching(op);
      const right = this.expression(op === '^' ? PRECEDENCE[op]! : PRECEDENCE[op]! + 1);
      const type = binaryType(op, left.type, right.type, bool, matching !== undefined, at);
      left = { kind: 'binary', type, op, left, right, bool, matching };
    }
    return left;
  }

  private vectorMatching(op: string): VectorMatching | undefined {
    let matching: VectorMatching | undefined;
    if (this.is('on') || this.is('ignoring')) {
      const on = this.next().text === 'on';
      matching = { on, labels: this.labelList('after on/ignoring'), card: 'one-to-one', include: [] };
    }
    if (this.is('group_left') || this.is('group_right')) {
      const token = this.next();
      if (SET_OPERATORS.has(op)) throw new ExpressionError(`no grouping allowed for "${op}" operation`, token.pos);
      const include = this.is('(') ? this.labelList(`after ${token.text}`) : [];
      matching = { ...(matching ?? { on: false, labels: [] }), card: token.text === 'group_left' ? 'many-to-one' : 'one-to-many', include };
    }
    return matching;
  }

  private unary(): PromNode {
    if (this.is('-') || this.is('+')) {
      const token = this.next();
      const expr = this.expression(PRECEDENCE['^']!);
      if (expr.type !== 'scalar' && expr.type !== 'vector')
        throw new ExpressionError(`unary expression only allowed on expressions of type scalar or instant vector, got ${TYPE_NAMES[expr.type]}`, token.pos);
      return { kind: 'unary', type: expr.type, op: token.text as '-' | '+', expr };
    }
    return this.postfix(this.primary());
  }

  private primary(): PromNode {
    const token = this.next();
    if (token.kind === 'number') return { kind: 'number', type: 'scalar', value: parseNumber(token.text) };
    if (token.kind === 'string') return { kind: 'string', type: 'string', value: unquote(token) };
    if (token.kind === 'punct' && token.text === '(') {
      const inner = this.expression(1);
      this.expect(')', 'to close "("');
      // Kept as a node: a parenthesised selector is no longer a selector (`(up)[5m]` is refused as Prometheus does).
      return { kind: 'paren', type: inner.type, expr: inner };
    }
    if (token.kind === 'punct' && token.text === '{') return this.selector(undefined, token.pos);
    if (token.kind === 'ident') {
      const name = token.text;
      const lower = name.toLowerCase();
      if (lower === 'inf' || lower === 'nan') return { kind: 'number', type: 'scalar', value: lower === 'inf' ? Infinity : NaN };
      if (lower in AGGREGATIONS && (this.is('(') || this.is('by') || this.is('without'))) return this.aggregation(lower);
      if (name in FUNCTIONS && this.is('(')) return this.call(name, token.pos);
      if (this.is('(')) throw new ExpressionError(`unknown function "${name}"`, token.pos);
      if (KEYWORDS.has(lower)) throw new ExpressionError(`unexpected keyword "${name}"`, token.pos);
      if (this.is('{')) {
        const open = this.next();
        return this.selector(name, open.pos);
      }
      return { kind: 'selector', type: 'vector', name, matchers: [{ label: '__name__', op: '=', value: name }], offsetMs: 0 };
    }
    throw new ExpressionError(`unexpected ${describe(token)}`, token.pos);
  }

  /** `[5m]`, `[30m:1m]`, `offset 5m`, `@ 1700000000` after a primary expression. */
  private postfix(primary: PromNode): PromNode {
    let node = primary;
    const selector = primary.kind === 'selector';
    let ranged = false;
    if (this.is('[')) {
      const open = this.next();
      const rangeMs = this.duration('as the range');
      if (this.is(':')) {
        this.next();
        const stepMs = this.is(']') ? undefined : this.duration('as the subquery step');
        if (node.type !== 'vector') throw new ExpressionError(`subquery is only allowed on instant vector, got ${TYPE_NAMES[node.type]}`, open.pos);
        node = { kind: 'subquery', type: 'matrix', expr: node, rangeMs, stepMs, offsetMs: 0 };
      } else if (node.kind !== 'selector' || node.type !== 'vector') {
        throw new ExpressionError('ranges only allowed for vector selectors', open.pos);
      } else {
        node = { ...node, type: 'matrix', rangeMs };
      }
      this.expect(']', 'to close the range');
      ranged = true;
    }
    let offset = false;
    let at = false;
    for (;;) {
      if (this.is('offset') && !offset) {
        const token = this.next();
        if (!selector && !ranged) throw new ExpressionError('offset modifier must be preceded by an instant vector selector or range vector selector or a subquery', token.pos);
        const sign = this.is('-') ? (this.next(), -1) : 1;
        (node as TimeModifiers).offsetMs = sign * this.duration('after offset');
        offset = true;
      } else if (this.is('@') && !at) {
        const token = this.next();
        if (!selector && !ranged) throw new ExpressionError('@ modifier must be preceded by an instant vector selector or range vector selector or a subquery', token.pos);
        if (this.is('start') || this.is('end')) {
          const which = this.next().text as 'start' | 'end';
          this.expect('(', 'after start/end');
          this.expect(')', 'after start(/end(');
          (node as TimeModifiers).at = which;
        } else {
          const sign = this.is('-') ? (this.next(), -1) : this.is('+') ? (this.next(), 1) : 1;
          const value = this.next();
          if (value.kind !== 'number') throw new ExpressionError(`expected a timestamp after @, found ${describe(value)}`, value.pos);
          (node as TimeModifiers).at = Math.round(sign * parseNumber(value.text) * 1000);
        }
        at = true;
      } else {
        return node;
      }
    }
  }

  /** A duration in milliseconds. */
  private duration(context: string): number {
    const token = this.next();
    if (token.kind !== 'duration') throw new ExpressionError(`expected a duration such as 5m ${context}, found ${describe(token)}`, token.pos);
    return durationMs(token.text);
  }

  /** `{label="value", ...}` after an optional metric name; at least one matcher must not match the empty string. */
  private selector(name: string | undefined, pos: number): PromNode {
    // The opening brace was consumed by the caller.
    let selective = name !== undefined;
    const matchers: LabelMatcher[] = name === undefined ? [] : [{ label: '__name__', op: '=', value: name }];
    while (!this.is('}')) {
      const label = this.next();
      if (label.kind !== 'ident') throw new ExpressionError(`expected a label name, found ${describe(label)}`, label.pos);
      const op = this.next();
      if (op.kind !== 'op' || !['=', '!=', '=~', '!~'].includes(op.text))
        throw new ExpressionError(`expected a label matching operator (=, !=, =~, !~) after ${label.text}, found ${describe(op)}`, op.pos);
      const value = this.next();
      if (value.kind !== 'string') throw new ExpressionError(`expected a quoted label value after ${label.text}${op.text}, found ${describe(value)}`, value.pos);
      const text = unquote(value);
      if (!matchesEmpty(op.text, text, value.pos)) selective = true;
      matchers.push({ label: label.text, op: op.text as LabelMatcher['op'], value: text });
      if (this.is(',')) this.next();
      else if (!this.is('}')) throw new ExpressionError(`expected "," or "}" in the label matchers, found ${describe(this.peek())}`, this.peek().pos);
    }
    this.expect('}', 'to close the label matchers');
    if (!selective) throw new ExpressionError('vector selector must contain at least one non-empty matcher', pos);
    const metricName = matchers.find((matcher) => matcher.label === '__name__' && matcher.op === '=')?.value;
    return { kind: 'selector', type: 'vector', name: metricName, matchers, offsetMs: 0 };
  }

  private labelList(context: string): string[] {
    this.expect('(', `to open the label list ${context}`);
    const labels: string[] = [];
    while (!this.is(')')) {
      const label = this.next();
      if (label.kind !== 'ident') throw new ExpressionError(`expected a label name ${context}, found ${describe(label)}`, label.pos);
      labels.push(label.text);
      if (this.is(',')) this.next();
      else if (!this.is(')')) throw new ExpressionError(`expected "," or ")" in the label list ${context}, found ${describe(this.peek())}`, this.peek().pos);
    }
    this.next();
    return labels;
  }

  private aggregation(op: string): PromNode {
    let grouping: { labels: string[]; without: boolean } | undefined;
    if (this.is('by') || this.is('without')) {
      const token = this.next();
      grouping = { labels: this.labelList(`after ${token.text}`), without: token.text === 'without' };
    }
    this.expect('(', `after ${op}`);
    const parameter = AGGREGATIONS[op];
    let param: PromNode | undefined;
    if (parameter) {
      const argPos = this.peek().pos;
      param = this.expression(1);
      if (param.type !== parameter) throw new ExpressionError(`expected type ${TYPE_NAMES[parameter]} in aggregation parameter of ${op}, got ${TYPE_NAMES[param.type]}`, argPos);
      this.expect(',', `after the parameter of ${op}`);
    }
    const argPos = this.peek().pos;
    const expr = this.expression(1);
    if (expr.type !== 'vector') throw new ExpressionError(`expected type instant vector in aggregation expression ${op}, got ${TYPE_NAMES[expr.type]}`, argPos);
    this.expect(')', `to close ${op}(`);
    if (this.is('by') || this.is('without')) {
      const token = this.next();
      if (grouping) throw new ExpressionError(`${op} already has a by/without clause`, token.pos);
      grouping = { labels: this.labelList(`after ${token.text}`), without: token.text === 'without' };
    }
    return { kind: 'aggregate', type: 'vector', op, param, expr, grouping: grouping?.labels ?? [], without: grouping?.without ?? false };
  }

  private call(name: string, pos: number): PromNode {
    const signature = FUNCTIONS[name]!;
    this.expect('(', `after ${name}`);
    const args: { node: PromNode; pos: number }[] = [];
    while (!this.is(')')) {
      const argPos = this.peek().pos;
      args.push({ node: this.expression(1), pos: argPos });
      if (this.is(',')) this.next();
      else if (!this.is(')')) throw new ExpressionError(`expected "," or ")" in the arguments of ${name}, found ${describe(this.peek())}`, this.peek().pos);
    }
    this.next();
    const min = signature.args.length - (signature.optional ?? 0);
    const max = signature.variadic ? Infinity : signature.args.length;
    if (args.length < min || args.length > max) {
      const wanted = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      throw new ExpressionError(`function "${name}" takes ${wanted} argument${min === 1 && max === 1 ? '' : 's'}, got ${args.length}`, pos);
    }
    args.forEach((arg, index) => {
      const wanted = signature.args[Math.min(index, signature.args.length - 1)]!;
      if (arg.node.type !== wanted) throw new ExpressionError(`expected type ${TYPE_NAMES[wanted]} in call to function "${name}", got ${TYPE_NAMES[arg.node.type]}`, arg.pos);
    });
    return { kind: 'call', type: signature.returns, name, args: args.map((arg) => arg.node) };
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };

/** `1h30m` → 5,400,000. */
export function durationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|[smhdwy])/g)) total += Number(amount) * DURATION_UNITS[unit!]!;
  return total;
}

/** 5,400,000 → `1h30m`; 0 → `0s` (the form durationMs reads back). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let text = '';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    if (rest >= size) {
      text += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return text;
}

function parseNumber(text: string): number {
  return /^0x/i.test(text) ? parseInt(text, 16) : Number(text);
}

function binaryType(op: string, left: ValueType, right: ValueType, bool: boolean, matching: boolean, pos: number): ValueType {
  if (bool && !COMPARISON.has(op)) throw new ExpressionError('bool modifier can only be used on comparison operators', pos);
  if ((left !== 'scalar' && left !== 'vector') || (right !== 'scalar' && right !== 'vector')) {
    throw new ExpressionError('binary expression must contain only scalar and instant vector types', pos);
  }
  if (SET_OPERATORS.has(op) && (left !== 'vector' || right !== 'vector')) {
    throw new ExpressionError(`set operator "${op}" not allowed in binary scalar expression`, pos);
  }
  if (matching && (left !== 'vector' || right !== 'vector')) throw new ExpressionError('vector matching only allowed between instant vectors', pos);
  if (left === 'scalar' && right === 'scalar') {
    if (COMPARISON.has(op) && !bool) throw new ExpressionError('comparisons between scalars must use BOOL modifier', pos);
    return 'scalar';
  }
  return 'vector';
}

function matchesEmpty(op: string, value: string, pos: number): boolean {
  if (op === '=') return value === '';
  if (op === '!=') return value !== '';
  let pattern: LabelPattern;
  try {
    pattern = compileLabelPattern(value);
  } catch (error) {
    throw new ExpressionError(`invalid regular expression ${JSON.stringify(value)}: ${(error as Error).message}`, pos);
  }
  return op === '=~' ? pattern.matches('') : !pattern.matches('');
}

/** Parses PromQL: its tree (whose `type` is what it evaluates to), or what is wrong and where. */
export function parsePromQL(expression: string): { type: ValueType; tree: PromNode; problem?: undefined } | { type?: undefined; tree?: undefined; problem: string } {
  try {
    const tree = new Parser(tokenize(expression)).parse();
    return { type: tree.type, tree };
  } catch (error) {
    if (error instanceof ExpressionError) return { problem: `${error.message} (at character ${error.pos + 1})` };
    throw error;
  }
}
