// Bearer tokens (AUTH_MODE=jwt), verified with jose: an HS256 secret, an RS256/ES256 public key
// (PEM), or a JWKS file. Signature, algorithm and expiry are always checked, issuer and audience
// unless explicitly turned off (for issuers that set neither, as the original console), and a
// token without the roles claim is refused. (The original only decoded such tokens: anyone could
// forge an admin's id. Here every token is verified, whatever it carries.)
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { GatewayError } from '../errors.js';
import type { Caller } from './access.js';
import { LruCache } from './lru-cache.js';

export interface JwtSettings {
  /** HS256 shared secret. */
  secret?: string;
  /** PEM file holding an RSA (RS256) or P-256 (ES256) public key, or a certificate. */
  publicKeyFile?: string;
  /** JWKS file (RS256/ES256 keys, picked by `kid`). */
  jwksFile?: string;
  /** Accepted `iss` values; null: not checked (JWT_VERIFY_ISSUER=false). */
  issuer: string[] | null;
  /** Accepted `aud` values; null: not checked (JWT_VERIFY_AUDIENCE=false). */
  audience: string[] | null;
  /** Claim holding the roles, a dotted path for nested claims (Keycloak: realm_access.roles). */
  rolesClaim: string;
  clockToleranceSeconds: number;
}

/** Longest bearer value looked at; a larger one is refused unread. */
export const MAX_TOKEN_LENGTH = 8192;

/** Verified tokens kept (by their SHA-256), the least recently used going first. */
export const VERIFIED_TOKENS_MAX = 10_000;

type Key = Uint8Array | KeyObject | JWTVerifyGetKey;

function publicKeyAlgorithm(key: KeyObject, file: string): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`JWT_PUBLIC_KEY_FILE ${file}: an RSA key (RS256) or a P-256 EC key (ES256) is needed, not ${key.asymmetricKeyType}`);
}

function loadKey(settings: JwtSettings): { key: Key; algorithms: string[] } {
  if (settings.secret) return { key: new TextEncoder().encode(settings.secret), algorithms: ['HS256'] };
  if (settings.publicKeyFile) {
    let key: KeyObject;
    try {
      key = createPublicKey(readFileSync(settings.publicKeyFile, 'utf8'));
    } catch (error) {
      throw new Error(`JWT_PUBLIC_KEY_FILE ${settings.publicKeyFile}: not a readable PEM public key or certificate (${(error as Error).message})`, { cause: error });
    }
    return { key, algorithms: [publicKeyAlgorithm(key, settings.publicKeyFile)] };
  }
  if (settings.jwksFile) {
    let jwks: JSONWebKeySet;
    try {
      jwks = JSON.parse(readFileSync(settings.jwksFile, 'utf8')) as JSONWebKeySet;
      if (!Array.isArray(jwks?.keys) || jwks.keys.length === 0) throw new Error('no "keys" array');
    } catch (error) {
      throw new Error(`JWT_JWKS_FILE ${settings.jwksFile}: not a readable JWKS (${(error as Error).message})`, { cause: error });
    }
    return { key: createLocalJWKSet(jwks), algorithms: ['RS256', 'ES256'] };
  }
  throw new Error('AUTH_MODE=jwt needs JWT_SECRET, JWT_PUBLIC_KEY_FILE or JWT_JWKS_FILE');
}

function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function refused(message: string): GatewayError {
  return new GatewayError('UNAUTHENTICATED', message);
}

/** A caller-facing reason for a token jose refused; never the token itself. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'exp' && error.reason === 'missing') return 'the token has no expiry (exp claim)';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token's ${error.claim} claim is not accepted`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (error instanceof errors.JWKSNoMatchingKey) return 'no configured key matches the token';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) return 'the bearer value is not a valid JWT';
  return 'the token could not be verified';
}

export interface JwtVerifier {
  verify(token: string): Promise<{ caller: Caller } | { failure: GatewayError }>;
}

export function createJwtVerifier(settings: JwtSettings): JwtVerifier {
  const { key, algorithms } = loadKey(settings);
  const options = {
    algorithms,
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    ...(settings.audience ? { audience: settings.audience } : {}),
    requiredClaims: ['exp'],
    clockTolerance: settings.clockToleranceSeconds,
  };
  // A token's signature and claims verify the same way until it expires (the keys are read once,
  // at start-up), so a verified token is kept by its hash until its `exp` (plus the clock
  // tolerance, as jose allows): a caller's later requests cost a hash, not a signature check.
  // Past that moment the entry is gone and the token is verified again, which refuses it.
  const verified = new LruCache<string, Caller>(VERIFIED_TOKENS_MAX);
  return {
    async verify(token) {
      if (token.length > MAX_TOKEN_LENGTH) return { failure: refused(`Token verification failed: the token is longer than ${MAX_TOKEN_LENGTH} characters.`) };
      const hash = createHash('sha256').update(token).digest('base64url');
      const kept = verified.get(hash);
      if (kept) return { caller: kept };
      let payload: JWTPayload;
      try {
        payload = typeof key === 'function' ? (await jwtVerify(token, key, options)).payload : (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        return { failure: refused(`Token verification failed: ${reasonOf(error)}.`) };
      }
      const roles = claimAt(payload, settings.rolesClaim);
      if (roles === undefined) return { failure: refused(`Token verification failed: the token has no ${settings.rolesClaim} claim.`) };
      if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string')) {
        return { failure: refused(`Token verification failed: the ${settings.rolesClaim} claim must be an array of role names.`) };
      }
      // `sub` is the standard subject; the original's tokens carried `id`.
      const id = typeof payload.sub === 'string' && payload.sub ? payload.sub : typeof payload.id === 'string' && payload.id ? payload.id : undefined;
      if (!id) return { failure: refused('Token verification failed: the token names no subject (sub).') };
      // requiredClaims makes `exp` a number here.
      const expiresAt = (payload.exp! + settings.clockToleranceSeconds) * 1000;
      const caller: Caller = Object.freeze({ id: id.slice(0, 120), roles: Object.freeze([...roles]), via: 'jwt', expiresAt });
      verified.set(hash, caller, expiresAt);
      return { caller };
    },
  };
}
