// A PromQL syntax and type check for metric aliases. The original stored any text as a metric and
// learnt it was wrong only when an alert rule built on it failed inside Grafana; here an alias's
// `metric` must parse as PromQL and evaluate to an instant vector or a scalar (what an alert rule
// compares against a threshold). It follows Prometheus 2.x's grammar and type rules: selectors with
// matchers, range and subquery brackets, offset and @ modifiers, aggregations with by/without, the
// function library with argument types, binary operators with precedence, bool, on/ignoring and
// group_left/group_right. It builds no tree: it answers "fine" or says what is wrong and where.

export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

interface Token {
  kind: 'number' | 'duration' | 'string' | 'ident' | 'op' | 'punct' | 'end';
  text: string;
  pos: number;
}

class ExpressionError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

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

const AGGREGATIONS: Record<string, ValueType | null> = {
  sum: null,
  min: null,
  max: null,
  avg: null,
  group: null,
  stddev: null,
  stdvar: null,
  count: null,
  count_values: 'string',
  topk: 'scalar',
  bottomk: 'scalar',
  quantile: 'scalar',
  limitk: 'scalar',
  limit_ratio: 'scalar',
};

interface Signature {
  args: ValueType[];
  /** How many trailing arguments may be left out. */
  optional?: number;
  /** The last argument may repeat. */
  variadic?: boolean;
  returns: ValueType;
}

const v = 'vector' as const;
const m = 'matrix' as const;
const s = 'scalar' as const;
const str = 'string' as const;
const vectorOf = (...args: ValueType[]): Signature => ({ args, returns: v });

const FUNCTIONS: Record<string, Signature> = {
  ...Object.fromEntries(
    [
      'abs',
      'ceil',
      'exp',
      'floor',
      'ln',
      'log2',
      'log10',
      'sgn',
      'sqrt',
      'sort',
      'sort_desc',
      'timestamp',
      'absent',
      'histogram_count',
      'histogram_sum',
      'histogram_avg',
      'histogram_stddev',
      'histogram_stdvar',
      'acos',
      'acosh',
      'asin',
      'asinh',
      'atan',
      'atanh',
      'cos',
      'cosh',
      'sin',
      'sinh',
      'tan',
      'tanh',
      'deg',
      'rad',
    ].map((name) => [name, vectorOf(v)]),
  ),
  ...Object.fromEntries(
    [
      'rate',
      'irate',
      'increase',
      'delta',
      'idelta',
      'deriv',
      'changes',
      'resets',
      'absent_over_time',
      'present_over_time',
      'avg_over_time',
      'min_over_time',
      'max_over_time',
      'sum_over_time',
      'count_over_time',
      'stddev_over_time',
      'stdvar_over_time',
      'last_over_time',
      'mad_over_time',
    ].map((name) => [name, vectorOf(m)]),
  ),
  ...Object.fromEntries(['day_of_month', 'day_of_week', 'day_of_year', 'days_in_month', 'hour', 'minute', 'month', 'year'].map((name) => [name, { args: [v], optional: 1, returns: v }])),
  clamp: vectorOf(v, s, s),
  clamp_max: vectorOf(v, s),
  clamp_min: vectorOf(v, s),
  round: { args: [v, s], optional: 1, returns: v },
  histogram_quantile: vectorOf(s, v),
  histogram_fraction: vectorOf(s, s, v),
  holt_winters: vectorOf(m, s, s),
  double_exponential_smoothing: vectorOf(m, s, s),
  predict_linear: vectorOf(m, s),
  quantile_over_time: vectorOf(s, m),
  label_replace: vectorOf(v, str, str, str, str),
  label_join: { args: [v, str, str, str], variadic: true, returns: v },
  sort_by_label: { args: [v, str], variadic: true, returns: v },
  sort_by_label_desc: { args: [v, str], variadic: true, returns: v },
  scalar: { args: [v], returns: s },
  vector: { args: [s], returns: v },
  time: { args: [], returns: s },
  pi: { args: [], returns: s },
};

const TYPE_NAMES: Record<ValueType, string> = { scalar: 'scalar', vector: 'instant vector', matrix: 'range vector', string: 'string' };

const DURATION = /^(\d+(ms|[smhdwy]))+/;
const NUMBER = /^(0x[0-9a-f]+|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)/i;
const IDENT = /^[A-Za-z_:][A-Za-z0-9_:]*/;
const OPERATORS = ['==', '!=', '<=', '>=', '=~', '!~', '+', '-', '*', '/', '%', '^', '<', '>', '='];
const PUNCTUATION = '(){}[],:@';

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  // Inside [...] a colon separates range and step; elsewhere it may be part of a metric name.
  let inBrackets = false;
  while (pos < text.length) {
    const rest = text.slice(pos);
    const space = /^(\s+|#[^\n]*)/.exec(rest);
    if (space) {
      pos += space[0].length;
      continue;
    }
    const char = rest[0]!;
    if (char === '"' || char === "'" || char === '`') {
      let end = pos + 1;
      while (end < text.length && text[end] !== char) end += char !== '`' && text[end] === '\\' ? 2 : 1;
      if (end >= text.length) throw new ExpressionError('unterminated string', pos);
      tokens.push({ kind: 'string', text: text.slice(pos, end + 1), pos });
      pos = end + 1;
      continue;
    }
    const duration = DURATION.exec(rest);
    if (duration && !/^[A-Za-z0-9_]/.test(rest.slice(duration[0].length))) {
      tokens.push({ kind: 'duration', text: duration[0], pos });
      pos += duration[0].length;
      continue;
    }
    const number = /^[0-9.]/.test(char) ? NUMBER.exec(rest) : null;
    if (number) {
      tokens.push({ kind: 'number', text: number[0], pos });
      pos += number[0].length;
      continue;
    }
    const ident = inBrackets && char === ':' ? null : IDENT.exec(rest);
    if (ident) {
      tokens.push({ kind: 'ident', text: ident[0], pos });
      pos += ident[0].length;
      continue;
    }
    const operator = OPERATORS.find((op) => rest.startsWith(op));
    if (operator) {
      tokens.push({ kind: 'op', text: operator, pos });
      pos += operator.length;
      continue;
    }
    if (PUNCTUATION.includes(char)) {
      if (char === '[' || char === ']') inBrackets = char === '[';
      tokens.push({ kind: 'punct', text: char, pos });
      pos += 1;
      continue;
    }
    throw new ExpressionError(`unexpected character ${JSON.stringify(char)}`, pos);
  }
  tokens.push({ kind: 'end', text: 'end of expression', pos: text.length });
  return tokens;
}

function unquote(token: Token): string {
  const body = token.text.slice(1, -1);
  return token.text.startsWith('`') ? body : body.replace(/\\(.)/g, '$1');
}

/** Deepest nesting (parentheses, unary signs, function arguments) an expression may have; deeper would overflow the parser's stack. */
export const MAX_EXPRESSION_NESTING = 200;

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): ValueType {
    const type = this.expression(1);
    const next = this.peek();
    if (next.kind !== 'end') throw new ExpressionError(`unexpected ${describe(next)}`, next.pos);
    return type;
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
  private expression(minPrecedence: number): ValueType {
    this.depth += 1;
    try {
      return this.binaryChain(minPrecedence);
    } finally {
      this.depth -= 1;
    }
  }

  private binaryChain(minPrecedence: number): ValueType {
    if (this.depth > MAX_EXPRESSION_NESTING) throw new ExpressionError(`the expression nests deeper than ${MAX_EXPRESSION_NESTING} levels`, this.peek().pos);
    let left = this.unary();
    for (let op = this.binaryOperator(); op && PRECEDENCE[op]! >= minPrecedence; op = this.binaryOperator()) {
      const at = this.next().pos;
      const bool = this.is('bool') ? (this.next(), true) : false;
      const matching = this.vectorMatching(op);
      const right = this.expression(op === '^' ? PRECEDENCE[op]! : PRECEDENCE[op]! + 1);
      left = binaryType(op, left, right, bool, matching, at);
    }
    return left;
  }

  private vectorMatching(op: string): boolean {
    let matching = false;
    if (this.is('on') || this.is('ignoring')) {
      this.next();
      this.labelList('after on/ignoring');
      matching = true;
    }
    if (this.is('group_left') || this.is('group_right')) {
      const token = this.next();
      if (SET_OPERATORS.has(op)) throw new ExpressionError(`no grouping allowed for "${op}" operation`, token.pos);
      if (this.is('(')) this.labelList(`after ${token.text}`);
      matching = true;
    }
    return matching;
  }

  private unary(): ValueType {
    if (this.is('-') || this.is('+')) {
      const token = this.next();
      const type = this.expression(PRECEDENCE['^']!);
      if (type !== 'scalar' && type !== 'vector') throw new ExpressionError(`unary expression only allowed on expressions of type scalar or instant vector, got ${TYPE_NAMES[type]}`, token.pos);
      return type;
    }
    return this.postfix(this.primary());
  }

  private primary(): { type: ValueType; selector: boolean } {
    const token = this.next();
    if (token.kind === 'number') return { type: 'scalar', selector: false };
    if (token.kind === 'string') return { type: 'string', selector: false };
    if (token.kind === 'punct' && token.text === '(') {
      const type = this.expression(1);
      this.expect(')', 'to close "("');
      return { type, selector: false };
    }
    if (token.kind === 'punct' && token.text === '{') return { type: this.selector(undefined, token.pos), selector: true };
    if (token.kind === 'ident') {
      const name = token.text;
      const lower = name.toLowerCase();
      if (lower === 'inf' || lower === 'nan') return { type: 'scalar', selector: false };
      if (lower in AGGREGATIONS && (this.is('(') || this.is('by') || this.is('without'))) return { type: this.aggregation(lower), selector: false };
      if (name in FUNCTIONS && this.is('(')) return { type: this.call(name, token.pos), selector: false };
      if (this.is('(')) throw new ExpressionError(`unknown function "${name}"`, token.pos);
      if (KEYWORDS.has(lower)) throw new ExpressionError(`unexpected keyword "${name}"`, token.pos);
      if (this.is('{')) {
        const open = this.next();
        return { type: this.selector(name, open.pos), selector: true };
      }
      return { type: 'vector', selector: true };
    }
    throw new ExpressionError(`unexpected ${describe(token)}`, token.pos);
  }

  /** `[5m]`, `[30m:1m]`, `offset 5m`, `@ 1700000000` after a primary expression. */
  private postfix(primary: { type: ValueType; selector: boolean }): ValueType {
    let { type } = primary;
    let ranged = false;
    if (this.is('[')) {
      const open = this.next();
      this.duration('as the range');
      if (this.is(':')) {
        this.next();
        if (!this.is(']')) this.duration('as the subquery step');
        if (type !== 'vector') throw new ExpressionError(`subquery is only allowed on instant vector, got ${TYPE_NAMES[type]}`, open.pos);
      } else if (!primary.selector || type !== 'vector') {
        throw new ExpressionError('ranges only allowed for vector selectors', open.pos);
      }
      this.expect(']', 'to close the range');
      type = 'matrix';
      ranged = true;
    }
    let offset = false;
    let at = false;
    for (;;) {
      if (this.is('offset') && !offset) {
        const token = this.next();
        if (!primary.selector && !ranged) throw new ExpressionError('offset modifier must be preceded by an instant vector selector or range vector selector or a subquery', token.pos);
        if (this.is('-')) this.next();
        this.duration('after offset');
        offset = true;
      } else if (this.is('@') && !at) {
        const token = this.next();
        if (!primary.selector && !ranged) throw new ExpressionError('@ modifier must be preceded by an instant vector selector or range vector selector or a subquery', token.pos);
        if (this.is('start') || this.is('end')) {
          this.next();
          this.expect('(', 'after start/end');
          this.expect(')', 'after start(/end(');
        } else {
          if (this.is('-') || this.is('+')) this.next();
          const value = this.next();
          if (value.kind !== 'number') throw new ExpressionError(`expected a timestamp after @, found ${describe(value)}`, value.pos);
        }
        at = true;
      } else {
        return type;
      }
    }
  }

  private duration(context: string): void {
    const token = this.next();
    if (token.kind !== 'duration') throw new ExpressionError(`expected a duration such as 5m ${context}, found ${describe(token)}`, token.pos);
  }

  /** `{label="value", ...}` after an optional metric name; at least one matcher must not match the empty string. */
  private selector(name: string | undefined, pos: number): ValueType {
    // The opening brace was consumed by the caller.
    let selective = name !== undefined;
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
      if (this.is(',')) this.next();
      else if (!this.is('}')) throw new ExpressionError(`expected "," or "}" in the label matchers, found ${describe(this.peek())}`, this.peek().pos);
    }
    this.expect('}', 'to close the label matchers');
    if (!selective) throw new ExpressionError('vector selector must contain at least one non-empty matcher', pos);
    return 'vector';
  }

  private labelList(context: string): void {
    this.expect('(', `to open the label list ${context}`);
    while (!this.is(')')) {
      const label = this.next();
      if (label.kind !== 'ident') throw new ExpressionError(`expected a label name ${context}, found ${describe(label)}`, label.pos);
      if (this.is(',')) this.next();
      else if (!this.is(')')) throw new ExpressionError(`expected "," or ")" in the label list ${context}, found ${describe(this.peek())}`, this.peek().pos);
    }
    this.next();
  }

  private aggregation(op: string): ValueType {
    let grouped = false;
    if (this.is('by') || this.is('without')) {
      const token = this.next();
      this.labelList(`after ${token.text}`);
      grouped = true;
    }
    this.expect('(', `after ${op}`);
    const parameter = AGGREGATIONS[op];
    if (parameter) {
      const argPos = this.peek().pos;
      const type = this.expression(1);
      if (type !== parameter) throw new ExpressionError(`expected type ${TYPE_NAMES[parameter]} in aggregation parameter of ${op}, got ${TYPE_NAMES[type]}`, argPos);
      this.expect(',', `after the parameter of ${op}`);
    }
    const argPos = this.peek().pos;
    const type = this.expression(1);
    if (type !== 'vector') throw new ExpressionError(`expected type instant vector in aggregation expression ${op}, got ${TYPE_NAMES[type]}`, argPos);
    this.expect(')', `to close ${op}(`);
    if (this.is('by') || this.is('without')) {
      const token = this.next();
      if (grouped) throw new ExpressionError(`${op} already has a by/without clause`, token.pos);
      this.labelList(`after ${token.text}`);
    }
    return 'vector';
  }

  private call(name: string, pos: number): ValueType {
    const signature = FUNCTIONS[name]!;
    this.expect('(', `after ${name}`);
    const types: { type: ValueType; pos: number }[] = [];
    while (!this.is(')')) {
      const argPos = this.peek().pos;
      types.push({ type: this.expression(1), pos: argPos });
      if (this.is(',')) this.next();
      else if (!this.is(')')) throw new ExpressionError(`expected "," or ")" in the arguments of ${name}, found ${describe(this.peek())}`, this.peek().pos);
    }
    this.next();
    const min = signature.args.length - (signature.optional ?? 0);
    const max = signature.variadic ? Infinity : signature.args.length;
    if (types.length < min || types.length > max) {
      const wanted = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      throw new ExpressionError(`function "${name}" takes ${wanted} argument${min === 1 && max === 1 ? '' : 's'}, got ${types.length}`, pos);
    }
    types.forEach((arg, index) => {
      const wanted = signature.args[Math.min(index, signature.args.length - 1)]!;
      if (arg.type !== wanted) throw new ExpressionError(`expected type ${TYPE_NAMES[wanted]} in call to function "${name}", got ${TYPE_NAMES[arg.type]}`, arg.pos);
    });
    return signature.returns;
  }
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
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${value})$`);
  } catch (error) {
    throw new ExpressionError(`invalid regular expression ${JSON.stringify(value)}: ${(error as Error).message}`, pos);
  }
  return op === '=~' ? pattern.test('') : !pattern.test('');
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'end of expression';
  const what = { ident: 'identifier ', number: 'number ', duration: 'duration ', string: 'string ', op: '', punct: '' }[token.kind];
  return `${what}${JSON.stringify(token.text)}`;
}

/** Parses PromQL: the type it evaluates to, or what is wrong and where. */
export function parsePromQL(expression: string): { type: ValueType; problem?: undefined } | { type?: undefined; problem: string } {
  try {
    return { type: new Parser(tokenize(expression)).parse() };
  } catch (error) {
    if (error instanceof ExpressionError) return { problem: `${error.message} (at character ${error.pos + 1})` };
    throw error;
  }
}

/** Why `expression` is not a PromQL expression an alert can use, or undefined when it is one. */
export function checkMetricExpression(expression: string): string | undefined {
  if (expression.trim() === '') return 'the metric expression is empty';
  const parsed = parsePromQL(expression);
  if (parsed.problem !== undefined) return `the metric expression is not valid PromQL: ${parsed.problem}`;
  // Prometheus parses a range vector or a string too, but an alert rule cannot compare it with a threshold.
  if (parsed.type !== 'vector' && parsed.type !== 'scalar') return `the metric expression must evaluate to an instant vector or a scalar, not a ${TYPE_NAMES[parsed.type]}`;
  return undefined;
}
