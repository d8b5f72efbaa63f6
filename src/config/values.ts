// Kinds of value the environment variables take, shared by the subsystems' schemas.
import { z } from 'zod';

export const booleanText = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

export const byteSize = z
  .string()
  .regex(/^\d+(b|kb|mb)$/i, 'must be a size such as 512kb or 1mb')
  .transform((value) => {
    const match = /^(\d+)(b|kb|mb)$/i.exec(value)!;
    const unit = match[2]!.toLowerCase();
    return Number(match[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
  });

/** A size as the settings spell it (1048576 -> 1mb), for messages that name the setting behind a limit. */
export function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}mb`;
  if (bytes % 1024 === 0) return `${bytes / 1024}kb`;
  return `${bytes}b`;
}

export const port = z.coerce.number().int().min(0).max(65535);

/** `a, b,,c` -> ['a', 'b', 'c']. */
export const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * Marks a variable as holding a secret (`.meta(SECRET)`): it may instead be read from the file its
 * `<NAME>_FILE` variable names, as Docker and Kubernetes secrets are mounted (src/config.ts).
 */
export const SECRET = { secret: true } as const;
