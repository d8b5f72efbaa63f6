// Names of datasources and their columns in PostgreSQL, which truncates identifiers at 63 bytes:
// long names keep a readable prefix and gain a hash, so two long names never collide.
import { createHash } from 'node:crypto';

const MAX_IDENTIFIER_BYTES = 63;

export function pgIdentifierName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha1').update(name).digest('hex').slice(0, 12);
  let prefix = name.slice(0, 48);
  while (Buffer.byteLength(prefix) > 48) prefix = prefix.slice(0, -1);
  return `${prefix}_${hash}`;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A text literal for DDL, where parameters cannot be bound (views). */
export function quoteLiteral(value: string): string {
  if (value.includes('\u0000')) throw new Error('a NUL character cannot appear in a literal');
  return `'${value.replaceAll("'", "''")}'`;
}
