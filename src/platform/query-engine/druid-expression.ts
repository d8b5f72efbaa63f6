// Druid's expression language (virtual columns and expression post-aggregators), the part dashboards
// write: arithmetic, comparisons, logic, case_searched/case_simple/if/nvl and a few math functions,
// compiled to one SQL expression. Identifiers resolve through the caller's scope (columns, or an
// aggregation's output), literals are bound parameters; anything else is refused, naming it. Types follow Druid: a LONG divided by a LONG is integer division (PostgreSQL's
// bigint division does the same), a comparison is 1 or 0 where a number is wanted.
import { GatewayError } from '../../errors.js';

/** What an expression yields: Druid's LONG, DOUBLE, STRING, a condition, or a column whose type the engine cannot tell. */
export type ExpressionType = 'long' | 'double' | 'string' | 'bool' | 'unknown';

export interface CompiledExpression {
  sql: string;
  type: ExpressionType;
}

export interface ExpressionScope {
  /** The SQL and type an identifier stands for; undefined when the name is unknown here. */
  resolve(name: string): CompiledExpression | undefined;
  /** Binds a value as a query parameter; its placeholder. */
  bind(value: unknown): string;
}

const MAX_LENGTH = 4_000;
const MAX_DEPTH = 40;

type Token =
  { kind: 'number'; text: string } | { kind: 'string'; text: string } | { kind: 'identifier'; text: string; quoted: boolean } | { kind: 'operator'; text: string } | { kind: 'end'; text: '' };

type Node =
  | { kind: 'number'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'null' }
  | { kind: 'identifier'; name: string }
  | { kind: 'unary'; op: string; operand: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'call'; name: string; args: Node[] };

const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '<', '>', '+', '-', '*', '/', '%', '^', '!', '(', ')', ','];

function refuse(where: string, message: string): GatewayError {
  return new GatewayError('DATA_OUT_INVALID_INPUT', `${where}: ${message}`);
}

function tokenize(text: string, where: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const number = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', text: number[0] });
      i += number[0].length;
      continue;
    }
    const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(rest);
    if (identifier) {
      tokens.push({ kind: 'identifier', text: identifier[0], quoted: false });
      i += identifier[0].length;
      continue;
    }
    if (rest[0] === '"' || rest[0] === "'") {
      const quote = rest[0];
      let value = '';
      let j = 1;
      for (; j < rest.length && rest[j] !== quote; j++) {
        if (rest[j] === '\\' && j + 1 < rest.length) j++;
        value += rest[j];
      }
      if (j >= rest.length) throw refuse(where, `a ${quote === '"' ? 'quoted name' : 'string'} is not closed`);
      tokens.push(quote === '"' ? { kind: 'identifier', text: value, quoted: true } : { kind: 'string', text: value });
      i += j + 1;
      continue;
    }
    const operator = OPERATORS.find((candidate) => rest.startsWith(candidate));
    if (!operator) throw refuse(where, `${JSON.stringify(rest.slice(0, 20))} is not part of the expressions the embedded query engine supports`);
    tokens.push({ kind: 'operator', text: operator });
    i += operator.length;
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

class Parser {
  private at = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly where: string,
  ) {}

  parse(): Node {
    const node = this.or();
    if (this.peek().kind !== 'end') throw refuse(this.where, `unexpected ${JSON.stringify(this.peek().text)} in the expression`);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.at]!;
  }

  private take(...operators: string[]): string | undefined {
    const token = this.peek();
    if (token.kind === 'operator' && operators.includes(token.text)) {
      this.at++;
      return token.text;
    }
    return undefined;
  }

  /** A closing parenthesis; one missing at the very end is supplied, as Druid's parser recovers it (the console's charts leave one off). */
  private close(): void {
    if (this.take(')') || this.peek().kind === 'end') return;
    throw refuse(this.where, `expected ")" but found ${JSON.stringify(this.peek().text)}`);
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw refuse(this.where, `the expression is nested deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private binaryLevel(operators: string[], next: () => Node): Node {
    let left = next();
    for (let op = this.take(...operators); op; op = this.take(...operators)) left = { kind: 'binary', op, left, right: next() };
    return left;
  }

  private or = (): Node => this.binaryLevel(['||'], this.and);
  private and = (): Node => this.binaryLevel(['&&'], this.comparison);
  private comparison = (): Node => this.binaryLevel(['<=', '>=', '==', '!=', '<', '>'], this.additive);
  private additive = (): Node => this.binaryLevel(['+', '-'], this.multiplicative);
  private multiplicative = (): Node => this.binaryLevel(['*', '/', '%'], this.power);

  private power = (): Node => {
    const base = this.unary();
    // Right-associative: 2^3^2 is 2^(3^2).
    return this.take('^') ? { kind: 'binary', op: '^', left: base, right: this.nested(this.power) } : base;
  };

  private unary = (): Node => {
    const op = this.take('-', '!');
    return op ? { kind: 'unary', op, operand: this.nested(this.unary) } : this.primary();
  };

  private primary(): Node {
    const token = this.peek();
    if (this.take('(')) {
      const inner = this.nested(this.or);
      this.close();
      return inner;
    }
    this.at++;
    if (token.kind === 'number') return { kind: 'number', text: token.text };
    if (token.kind === 'string') return { kind: 'string', value: token.text };
    if (token.kind === 'identifier') {
      if (!token.quoted && this.take('(')) {
        const args: Node[] = [];
        if (!this.take(')')) {
          do args.push(this.nested(this.or));
          while (this.take(','));
          this.close();
        }
        return { kind: 'call', name: token.text.toLowerCase(), args };
      }
      if (!token.quoted && token.text.toLowerCase() === 'null') return { kind: 'null' };
      return { kind: 'identifier', name: token.text };
    }
    throw refuse(this.where, token.kind === 'end' ? 'the expression ends early' : `unexpected ${JSON.stringify(token.text)} in the expression`);
  }
}

const isNumeric = (type: ExpressionType) => type === 'long' || type === 'double' || type === 'bool';

/** The type several values share (CASE branches, greatest/least): LONG only if every one is. */
function unify(types: ExpressionType[]): ExpressionType {
  const known = types.filter((type) => type !== 'unknown');
  if (known.length < types.length) return 'unknown';
  if (known.every((type) => type === 'string')) return 'string';
  if (known.every((type) => type === 'long' || type === 'bool')) return 'long';
  return known.every(isNumeric) ? 'double' : 'unknown';
}

/** An expression where a value is wanted: a condition becomes 1 or 0. */
function asValue(expression: CompiledExpression): CompiledExpression {
  return expression.type === 'bool' ? { sql: `(${expression.sql})::int`, type: 'long' } : expression;
}

/** An expression where a condition is wanted: a number is true when not zero, a string when it reads "true" (as Druid reads them). */
function asCondition(expression: CompiledExpression): string {
  switch (expression.type) {
    case 'bool':
      return expression.sql;
    case 'long':
    case 'double':
      return `((${expression.sql}) <> 0)`;
    case 'string':
      return `(lower(${expression.sql}) = 'true')`;
    default:
      return `((${expression.sql})::text NOT IN ('0', '0.0', 'false', ''))`;
  }
}

const NUMERIC_FUNCTIONS: Record<string, { sql: string; type: 'same' | 'double' }> = {
  abs: { sql: 'abs', type: 'same' },
  ceil: { sql: 'ceil', type: 'double' },
  floor: { sql: 'floor', type: 'double' },
  sqrt: { sql: 'sqrt', type: 'double' },
  exp: { sql: 'exp', type: 'double' },
  log: { sql: 'ln', type: 'double' },
  log10: { sql: 'log', type: 'double' },
};

const FUNCTIONS = new Set(['case_searched', 'case_simple', 'if', 'nvl', 'greatest', 'least', 'div', 'pow', 'round', ...Object.keys(NUMERIC_FUNCTIONS)]);

class Compiler {
  constructor(
    private readonly scope: ExpressionScope,
    private readonly where: string,
  ) {}

  compile(node: Node): CompiledExpression {
    switch (node.kind) {
      case 'number': {
        const integer = /^\d+$/.test(node.text);
        if (integer && node.text.length > 18) throw refuse(this.where, `${node.text} is too large for a LONG`);
        // Bound like every other value of the query, never written into the SQL text.
        return integer ? { sql: `${this.scope.bind(node.text)}::bigint`, type: 'long' } : { sql: `${this.scope.bind(Number(node.text))}::double precision`, type: 'double' };
      }
      case 'string':
        return { sql: `${this.scope.bind(node.value)}::text`, type: 'string' };
      case 'null':
        return { sql: 'NULL', type: 'unknown' };
      case 'identifier': {
        const resolved = this.scope.resolve(node.name);
        if (!resolved) throw refuse(this.where, `the expression names ${JSON.stringify(node.name)}, which is neither a column nor an output here`);
        return resolved;
      }
      case 'unary': {
        const operand = this.compile(node.operand);
        if (node.op === '!') return { sql: `(NOT ${asCondition(operand)})`, type: 'bool' };
        const value = asValue(operand);
        return { sql: `(-(${value.sql}))`, type: value.type };
      }
      case 'binary':
        return this.binary(node.op, this.compile(node.left), this.compile(node.right));
      case 'call':
        return this.call(node.name, node.args);
    }
  }

  private binary(op: string, left: CompiledExpression, right: CompiledExpression): CompiledExpression {
    if (op === '&&' || op === '||') return { sql: `(${asCondition(left)} ${op === '&&' ? 'AND' : 'OR'} ${asCondition(right)})`, type: 'bool' };
    const a = asValue(left);
    const b = asValue(right);
    if (['<', '<=', '>', '>=', '==', '!='].includes(op)) {
      const sqlOp = op === '==' ? '=' : op === '!=' ? '<>' : op;
      return { sql: `((${a.sql}) ${sqlOp} (${b.sql}))`, type: 'bool' };
    }
    // Druid's + joins two strings.
    if (op === '+' && (a.type === 'string' || b.type === 'string')) return { sql: `((${a.sql})::text || (${b.sql})::text)`, type: 'string' };
    if (a.type === 'string' || b.type === 'string') throw refuse(this.where, `"${op}" needs numbers, not text`);
    const type: ExpressionType = a.type === 'unknown' || b.type === 'unknown' ? 'unknown' : a.type === 'long' && b.type === 'long' ? 'long' : 'double';
    switch (op) {
      case '+':
      case '-':
      case '*':
        return { sql: `((${a.sql}) ${op} (${b.sql}))`, type };
      case '/':
        // Division by zero is NULL here (PostgreSQL would fail the whole query).
        return { sql: `((${a.sql}) / NULLIF(${b.sql}, 0))`, type };
      case '%':
        return type === 'long' ? { sql: `((${a.sql}) % NULLIF(${b.sql}, 0))`, type } : { sql: `(mod((${a.sql})::numeric, NULLIF((${b.sql})::numeric, 0))::double precision)`, type: 'double' };
      default: {
        const power = `power((${a.sql})::double precision, (${b.sql})::double precision)`;
        return type === 'long' ? { sql: `(trunc(${power})::bigint)`, type } : { sql: power, type: 'double' };
      }
    }
  }

  private call(name: string, nodes: Node[]): CompiledExpression {
    if (!FUNCTIONS.has(name)) throw refuse(this.where, `the embedded query engine does not support the function ${name}()`);
    const args = nodes.map((node) => this.compile(node));
    const arity = (min: number, max = min) => {
      if (args.length < min || args.length > max) throw refuse(this.where, `${name}() takes ${min === max ? min : `${min} to ${max}`} arguments, not ${args.length}`);
    };
    const values = () => args.map(asValue);
    switch (name) {
      case 'case_searched': {
        // case_searched(condition1, value1, condition2, value2, ..., [else])
        if (args.length < 2) throw refuse(this.where, 'case_searched() needs at least a condition and a value');
        const whens: string[] = [];
        const results: CompiledExpression[] = [];
        for (let i = 0; i + 1 < args.length; i += 2) {
          const value = asValue(args[i + 1]!);
          whens.push(`WHEN ${asCondition(args[i]!)} THEN ${value.sql}`);
          results.push(value);
        }
        const otherwise = args.length % 2 === 1 ? asValue(args.at(-1)!) : undefined;
        if (otherwise) results.push(otherwise);
        return { sql: `(CASE ${whens.join(' ')}${otherwise ? ` ELSE ${otherwise.sql}` : ''} END)`, type: unify(results.map((result) => result.type)) };
      }
      case 'case_simple': {
        // case_simple(value, match1, result1, match2, result2, ..., [else])
        if (args.length < 3) throw refuse(this.where, 'case_simple() needs a value, a match and a result');
        const [subject, ...rest] = values();
        const whens: string[] = [];
        const results: CompiledExpression[] = [];
        for (let i = 0; i + 1 < rest.length; i += 2) {
          whens.push(`WHEN ${rest[i]!.sql} THEN ${rest[i + 1]!.sql}`);
          results.push(rest[i + 1]!);
        }
        const otherwise = rest.length % 2 === 1 ? rest.at(-1) : undefined;
        if (otherwise) results.push(otherwise);
        return { sql: `(CASE ${subject!.sql} ${whens.join(' ')}${otherwise ? ` ELSE ${otherwise.sql}` : ''} END)`, type: unify(results.map((result) => result.type)) };
      }
      case 'if': {
        arity(3);
        const [then, otherwise] = [asValue(args[1]!), asValue(args[2]!)];
        return { sql: `(CASE WHEN ${asCondition(args[0]!)} THEN ${then.sql} ELSE ${otherwise.sql} END)`, type: unify([then.type, otherwise.type]) };
      }
      case 'nvl': {
        arity(2);
        const [value, fallback] = values();
        return { sql: `COALESCE(${value!.sql}, ${fallback!.sql})`, type: unify([value!.type, fallback!.type]) };
      }
      case 'greatest':
      case 'least': {
        if (args.length === 0) throw refuse(this.where, `${name}() needs at least one argument`);
        const list = values();
        return { sql: `${name.toUpperCase()}(${list.map((value) => value.sql).join(', ')})`, type: unify(list.map((value) => value.type)) };
      }
      case 'div': {
        arity(2);
        const [a, b] = values();
        return { sql: `(trunc((${a!.sql})::double precision)::bigint / NULLIF(trunc((${b!.sql})::double precision)::bigint, 0))`, type: 'long' };
      }
      case 'pow':
        arity(2);
        return this.binary('^', args[0]!, args[1]!);
      case 'round': {
        arity(1, 2);
        const [value, scale] = values();
        if (scale && scale.type !== 'long') throw refuse(this.where, 'round() takes a whole number of digits');
        if (value!.type === 'long' && !scale) return value!;
        return { sql: `(round((${value!.sql})::numeric, ${scale ? `(${scale.sql})::int` : '0'})::double precision)`, type: 'double' };
      }
      default: {
        const numeric = NUMERIC_FUNCTIONS[name]!;
        arity(1);
        const [value] = values();
        if (value!.type === 'string') throw refuse(this.where, `${name}() needs a number, not text`);
        const type = numeric.type === 'same' ? value!.type : 'double';
        return { sql: `${numeric.sql}(${value!.sql})${type === 'double' ? '::double precision' : ''}`, type };
      }
    }
  }
}

/** Compiles Druid expression text to SQL; `where` names it in messages (e.g. `virtualColumns[0] v0`). */
export function compileExpression(text: unknown, scope: ExpressionScope, where: string): CompiledExpression {
  if (typeof text !== 'string' || text.trim() === '') throw refuse(where, 'an expression is required');
  if (text.length > MAX_LENGTH) throw refuse(where, `the expression is longer than ${MAX_LENGTH} characters`);
  return asValue(new Compiler(scope, where).compile(new Parser(tokenize(text, where), where).parse()));
}

/** An expression's value as Druid's outputType (LONG, FLOAT, DOUBLE, STRING) says; absent: as computed. */
export function castToOutputType(expression: CompiledExpression, outputType: unknown, where: string): CompiledExpression {
  if (outputType === undefined || outputType === null) return expression;
  switch (typeof outputType === 'string' ? outputType.toUpperCase() : outputType) {
    case 'LONG':
      // Druid truncates a DOUBLE to a LONG (PostgreSQL's cast would round it).
      return expression.type === 'long' ? expression : { sql: `(trunc((${expression.sql})::double precision)::bigint)`, type: 'long' };
    case 'DOUBLE':
    case 'FLOAT':
      return { sql: `((${expression.sql})::double precision)`, type: 'double' };
    case 'STRING':
      return { sql: `((${expression.sql})::text)`, type: 'string' };
    default:
      throw refuse(where, `the embedded query engine does not support outputType ${JSON.stringify(outputType).slice(0, 40)}`);
  }
}
