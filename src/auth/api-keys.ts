// API keys for machine clients (`x-api-key`). A key is 32 random bytes; only its SHA-256 is stored
// (a fast hash is enough for a secret of that entropy: there is nothing to guess). The key itself
// is shown once, when made (scripts/api-key.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { GatewayError } from '../errors.js';
import { isUniqueViolation } from '../platform/database/errors.js';
import type { Caller } from './access.js';
import type { ChangeFeed } from '../platform/cache/change-feed.js';
import { LruCache } from './lru-cache.js';

export const API_KEY_HEADER = 'x-api-key';
/** The table whose announced changes drop kept keys. */
const API_KEYS_TABLE = 'api_keys';
const KEY_PREFIX = 'dpg_';
const KEY_PATTERN = /^dpg_[A-Za-z0-9_-]{43}$/;

export interface ApiKeyRecord {
  id: string;
  name: string;
  keyPrefix: string;
  roles: string[];
  createdBy: string;
  createdDate: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class ApiKeyNameTaken extends Error {
  constructor(name: string) {
    super(`an API key named "${name}" exists already`);
  }
}

export function createApiKeyStore(prisma: PrismaClient) {
  const select = { id: true, name: true, keyPrefix: true, roles: true, createdBy: true, createdDate: true, expiresAt: true, revokedAt: true } as const;
  return {
    /** Makes a key; the returned `key` is the only time it exists outside the caller's hands. */
    async create(input: { name: string; roles: string[]; createdBy: string; expiresAt?: Date }): Promise<{ key: string; record: ApiKeyRecord }> {
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      try {
        const record = await prisma.apiKey.create({
          data: {
            id: randomUUID(),
            name: input.name,
            keyHash: hashApiKey(key),
            keyPrefix: key.slice(0, 10),
            roles: input.roles,
            createdBy: input.createdBy,
            expiresAt: input.expiresAt ?? null,
          },
          select,
        });
        return { key, record };
      } catch (error) {
        if (isUniqueViolation(error)) throw new ApiKeyNameTaken(input.name);
        throw error;
      }
    },
    list(): Promise<ApiKeyRecord[]> {
      return prisma.apiKey.findMany({ select, orderBy: { createdDate: 'asc' } });
    },
    async revoke(name: string): Promise<boolean> {
      const done = await prisma.apiKey.updateMany({ where: { name, revokedAt: null }, data: { revokedAt: new Date() } });
      return done.count > 0;
    },
    findByHash(keyHash: string) {
      return prisma.apiKey.findUnique({ where: { keyHash }, select });
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;

function refused(message: string): GatewayError {
  return new GatewayError('UNAUTHENTICATED', message);
}

export interface ApiKeyVerifier {
  verify(key: string): Promise<{ caller: Caller } | { failure: GatewayError }>;
}

/** Verified API keys kept (by their hash), the least recently used going first. */
export const VERIFIED_KEYS_MAX = 10_000;

/** The announcements of committed changes (platform/cache/change-feed.ts) the verifier listens to. */
export type KeyChanges = Pick<ChangeFeed, 'listening' | 'subscribe'>;

/**
 * Verifies `x-api-key` values against the store. A verified key is kept by its hash: while the
 * database's change announcements are heard (`changes`), until the key expires, since revoking or
 * deleting a key announces its row (migration api_key_announcements) and drops it here at once, in
 * every gateway; without them (or when the connection to them drops and comes back, which forgets
 * everything), for `cacheTtlMs` at most. `cacheTtlMs` 0 keeps nothing.
 */
export function createApiKeyVerifier(store: Pick<ApiKeyStore, 'findByHash'>, cacheTtlMs: number, changes?: KeyChanges): ApiKeyVerifier {
  const cache = new LruCache<string, { caller: Caller; keyId: string; expiresAt: Date | null }>(VERIFIED_KEYS_MAX);
  // Bumped by every announced change of a key and every reset: a look-up that began before one must
  // not keep what it read (the key may have been revoked meanwhile).
  let generation = 0;
  changes?.subscribe({
    change(change) {
      if (change.table !== API_KEYS_TABLE) return;
      generation += 1;
      if (change.key === '*') cache.clear();
      else cache.deleteWhere((entry) => entry.keyId === change.key);
    },
    reset() {
      generation += 1;
      cache.clear();
    },
  });
  return {
    async verify(key) {
      if (!KEY_PATTERN.test(key)) return { failure: refused('API key verification failed: the value is not an API key of this service.') };
      const hash = hashApiKey(key);
      let entry = cacheTtlMs > 0 ? cache.get(hash) : undefined;
      if (!entry) {
        const startedAt = generation;
        const heard = changes?.listening === true;
        const record = await store.findByHash(hash);
        if (!record) return { failure: refused('API key verification failed: the key is not known.') };
        if (record.revokedAt) return { failure: refused('API key verification failed: the key has been revoked.') };
        entry = { caller: Object.freeze({ id: `apikey:${record.name}`, roles: Object.freeze([...record.roles]), via: 'api-key' as const }), keyId: record.id, expiresAt: record.expiresAt };
        if (cacheTtlMs > 0 && generation === startedAt) {
          const until = heard && changes.listening ? (record.expiresAt?.getTime() ?? Infinity) : Date.now() + cacheTtlMs;
          cache.set(hash, entry, until);
        }
      }
      if (entry.expiresAt && entry.expiresAt.getTime() <= Date.now()) return { failure: refused('API key verification failed: the key has expired.') };
      return { caller: entry.caller };
    },
  };
}
