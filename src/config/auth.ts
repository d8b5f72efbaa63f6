// Authentication: none on loopback, JWT bearer tokens or the session cookie, and how long a verified caller is remembered.
import { z } from 'zod';
import { isLoopbackHost, type ServerVariables } from './server.js';
import { booleanText, list, SECRET } from './values.js';

export const authVariables = z.object({
  AUTH_MODE: z
    .enum(['none', 'jwt', 'session'])
    .default('none')
    .describe('none (everyone is SYSTEM; only on a loopback HOST), jwt (bearer tokens) or session (the connect.sid cookie). jwt and session also take API keys (x-api-key).'),
  PERMISSIONS_FILE: z.string().min(1).optional().describe('Role and permission policy (JSON); default config/permissions.json, the original role groups.'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional().describe('AUTH_MODE=jwt: HS256 shared secret.').meta(SECRET),
  JWT_PUBLIC_KEY_FILE: z.string().min(1).optional().describe('AUTH_MODE=jwt: PEM file with the RS256 (RSA) or ES256 (P-256) public key or certificate.'),
  JWT_JWKS_FILE: z.string().min(1).optional().describe('AUTH_MODE=jwt: JWKS file (RS256/ES256 keys, chosen by kid).'),
  JWT_ISSUER: z.string().min(1).optional().describe('AUTH_MODE=jwt: accepted `iss` values, comma-separated (required).'),
  JWT_AUDIENCE: z.string().min(1).optional().describe('AUTH_MODE=jwt: accepted `aud` values, comma-separated (required).'),
  JWT_VERIFY_ISSUER: booleanText
    .default(true)
    .describe('AUTH_MODE=jwt: check `iss` against JWT_ISSUER. Off only for issuers that set none (the original console signs its tokens without `iss`); a warning is logged at start-up.'),
  JWT_VERIFY_AUDIENCE: booleanText
    .default(true)
    .describe('AUTH_MODE=jwt: check `aud` against JWT_AUDIENCE. Off only for issuers that set none (the original console); a warning is logged at start-up.'),
  JWT_ROLES_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+(\.[A-Za-z0-9_:-]+)*$/, 'must be a claim name or dotted path')
    .default('roles')
    .describe('AUTH_MODE=jwt: claim holding the roles (dotted path for nested claims).'),
  JWT_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30).describe('AUTH_MODE=jwt: clock skew allowed on exp/nbf.'),
  SESSION_SECRET: z.string().min(1).optional().describe('AUTH_MODE=session: secret(s) the session cookie is signed with, comma-separated (first is current; required).').meta(SECRET),
  SESSION_TABLE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/, 'must be a table name, optionally schema-qualified')
    .default('session')
    .describe("AUTH_MODE=session: the express-session store table (connect-pg-simple's layout: sid, sess, expire). The original console's is user_session."),
  SESSION_USER_PATH: z
    .string()
    .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, 'must be a dotted path')
    .optional()
    .describe(
      'AUTH_MODE=session: where the session record holds the user: an id string or an object with an id (the console: passport.user). Unset: user, passport.user or the record itself, each an object with an id.',
    ),
  SESSION_ROLES_PATH: z
    .string()
    .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, 'must be a dotted path')
    .optional()
    .describe("AUTH_MODE=session: where the session record holds the user's roles (the console: roles). Unset: the user object's roles."),
  SESSION_COOKIE_NAME: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a cookie name')
    .default('connect.sid')
    .describe('AUTH_MODE=session: name of the session cookie.'),
  SESSION_TRUSTED_ORIGINS: z
    .string()
    .default('')
    .refine((value) => list(value).every((origin) => /^https?:\/\/[^/\s]+$/i.test(origin)), 'must be origins such as https://console.example.com (scheme and host, no path), comma-separated')
    .describe(
      "AUTH_MODE=session: origins whose requests may carry the session cookie although they name another host than the gateway's: a console whose proxy forwards the browser's Origin while rewriting Host. Default: none (such a request is refused as cross-site).",
    ),
  AUTH_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300_000)
    .default(5000)
    .describe(
      "How long a verified session is remembered (ending it takes effect within this), and an API key while the database's change announcements are not heard (while they are, a key is kept until it expires and dropped the moment it is revoked); 0: never. Verified JWTs are kept until their exp whatever this says.",
    ),
});

export type AuthVariables = z.infer<typeof authVariables>;

export function authSettings(e: AuthVariables) {
  return {
    mode: e.AUTH_MODE,
    /** Unset: config/permissions.json. */
    ...(e.PERMISSIONS_FILE ? { permissionsFile: e.PERMISSIONS_FILE } : {}),
    cacheTtlMs: e.AUTH_CACHE_TTL_MS,
    ...(e.AUTH_MODE === 'jwt' ? { jwt: jwtSettings(e) } : {}),
    ...(e.AUTH_MODE === 'session' ? { session: sessionSettings(e) } : {}),
  };
}

function jwtSettings(e: AuthVariables) {
  return {
    ...(e.JWT_SECRET ? { secret: e.JWT_SECRET } : {}),
    ...(e.JWT_PUBLIC_KEY_FILE ? { publicKeyFile: e.JWT_PUBLIC_KEY_FILE } : {}),
    ...(e.JWT_JWKS_FILE ? { jwksFile: e.JWT_JWKS_FILE } : {}),
    /** null: that check is off (JWT_VERIFY_ISSUER=false). */
    issuer: e.JWT_VERIFY_ISSUER ? list(e.JWT_ISSUER) : null,
    /** null: that check is off (JWT_VERIFY_AUDIENCE=false). */
    audience: e.JWT_VERIFY_AUDIENCE ? list(e.JWT_AUDIENCE) : null,
    rolesClaim: e.JWT_ROLES_CLAIM,
    clockToleranceSeconds: e.JWT_CLOCK_TOLERANCE_SECONDS,
  };
}

function sessionSettings(e: AuthVariables) {
  return {
    cookieName: e.SESSION_COOKIE_NAME,
    secrets: list(e.SESSION_SECRET),
    table: e.SESSION_TABLE,
    trustedOrigins: list(e.SESSION_TRUSTED_ORIGINS),
    ...(e.SESSION_USER_PATH ? { userPath: e.SESSION_USER_PATH } : {}),
    ...(e.SESSION_ROLES_PATH ? { rolesPath: e.SESSION_ROLES_PATH } : {}),
  };
}

/** Settings of authentication that only make sense together; every problem is reported at once. */
export function authProblems(e: AuthVariables & Pick<ServerVariables, 'HOST'>): string[] {
  const problems: string[] = [];
  if (e.AUTH_MODE === 'none' && !isLoopbackHost(e.HOST)) {
    problems.push(
      `AUTH_MODE: 'none' (no authentication: every caller acts as SYSTEM with every permission) is allowed only on a loopback HOST, and HOST is ${e.HOST}. ` +
        'Set AUTH_MODE=jwt or AUTH_MODE=session, or listen on 127.0.0.1.',
    );
  }
  if (e.AUTH_MODE === 'jwt') {
    const keys = [e.JWT_SECRET && 'JWT_SECRET', e.JWT_PUBLIC_KEY_FILE && 'JWT_PUBLIC_KEY_FILE', e.JWT_JWKS_FILE && 'JWT_JWKS_FILE'].filter(Boolean);
    if (keys.length !== 1) problems.push(`AUTH_MODE=jwt needs exactly one of JWT_SECRET, JWT_PUBLIC_KEY_FILE, JWT_JWKS_FILE (${keys.length ? `got ${keys.join(' and ')}` : 'none is set'})`);
    if (e.JWT_VERIFY_ISSUER && list(e.JWT_ISSUER).length === 0) problems.push('JWT_ISSUER: required with AUTH_MODE=jwt (the accepted token issuers), unless JWT_VERIFY_ISSUER=false');
    if (e.JWT_VERIFY_AUDIENCE && list(e.JWT_AUDIENCE).length === 0) problems.push('JWT_AUDIENCE: required with AUTH_MODE=jwt (the accepted token audiences), unless JWT_VERIFY_AUDIENCE=false');
  }
  if (e.AUTH_MODE === 'session' && list(e.SESSION_SECRET).length === 0) problems.push('SESSION_SECRET: required with AUTH_MODE=session (the session cookie signing secret)');
  return problems;
}
