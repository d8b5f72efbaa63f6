// A number as Prometheus's JSON writes it.

/**
 * A value as Prometheus's JSON writes it (Go's FormatFloat 'f', -1): NaN, +Inf, -Inf, or the
 * shortest decimal that reads back as the value, always in positional notation (0.0000001 where
 * JavaScript writes 1e-7) and with the sign of a negative zero.
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  const text = String(value);
  if (text.includes('e')) return positional(text);
  return value === 0 && Object.is(value, -0) ? '-0' : text;
}

/** JavaScript's exponent notation (`-1.25e-7`: one digit before the point) written out with the same digits. */
function positional(text: string): string {
  const sign = text.startsWith('-') ? '-' : '';
  const [mantissa, exponent] = text.slice(sign.length).split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  // Where the decimal point goes among the digits.
  const point = 1 + Number(exponent);
  // Below 1e-6 the point comes before the digits, from 1e21 after them (JavaScript writes no other in exponent notation).
  return point <= 0 ? `${sign}0.${'0'.repeat(-point)}${digits}` : `${sign}${digits}${'0'.repeat(point - digits.length)}`;
}
