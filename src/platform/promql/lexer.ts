// PromQL's tokens: numbers, durations, strings, identifiers, operators and punctuation, each with
// its position (what a parse error names).

export interface Token {
  kind: 'number' | 'duration' | 'string' | 'ident' | 'op' | 'punct' | 'end';
  text: string;
  pos: number;
}

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

const DURATION = /^(\d+(ms|[smhdwy]))+/;
const NUMBER = /^(0x[0-9a-f]+|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)/i;
const IDENT = /^[A-Za-z_:][A-Za-z0-9_:]*/;
const OPERATORS = ['==', '!=', '<=', '>=', '=~', '!~', '+', '-', '*', '/', '%', '^', '<', '>', '='];
const PUNCTUATION = '(){}[],:@';

export function tokenize(text: string): Token[] {
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

export function unquote(token: Token): string {
  const body = token.text.slice(1, -1);
  return token.text.startsWith('`') ? body : body.replace(/\\(.)/g, '$1');
}

export function describe(token: Token): string {
  if (token.kind === 'end') return 'end of expression';
  const what = { ident: 'identifier ', number: 'number ', duration: 'duration ', string: 'string ', op: '', punct: '' }[token.kind];
  return `${what}${JSON.stringify(token.text)}`;
}
