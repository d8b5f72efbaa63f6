// API keys for machine clients, on the database the gateway's configuration names (DATABASE_URL,
// or the embedded PostgreSQL under DATA_DIR: the running gateway's server when there is one, else
// started for the command and stopped after it):
//
//   node --import tsx scripts/api-key.ts create <name> <role>[,<role>...] [--expires 2027-01-01]
//   node --import tsx scripts/api-key.ts list
//   node --import tsx scripts/api-key.ts revoke <name>
//
// `npm run build` compiles it to dist/scripts/api-key.js, which the image carries: there (or after
// `npm start`) run `node dist/scripts/api-key.js create ...`, e.g. `docker compose exec gateway node
// dist/scripts/api-key.js create operator admin`.
//
// `create` prints the key once; only its SHA-256 is stored. Callers send it as `x-api-key`.
import { createApiKeyStore, ApiKeyNameTaken } from '../src/auth/api-keys.js';
import { loadPolicy } from '../src/auth/policy.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openDatabase } from '../src/platform/database/database.js';
import { runningEmbeddedUrl } from '../src/platform/database/embedded.js';

const USAGE = 'usage: api-key create <name> <role>[,<role>...] [--expires YYYY-MM-DD] | list | revoke <name>';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const [command, ...args] = process.argv.slice(2);
if (!command || !['create', 'list', 'revoke'].includes(command)) fail(USAGE);

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}

// A gateway running on the embedded PostgreSQL holds its folder: use its server rather than start another.
const settings = config.database;
const running = settings.mode === 'embedded' ? await runningEmbeddedUrl(settings.dataDir, 'gateway') : undefined;
const database = await openDatabase(running ? { ...settings, mode: 'external', url: running } : settings, createLogger('warn')).catch((error: unknown) =>
  fail(`api-key: cannot open the gateway's database: ${(error as Error).message}`),
);
const store = createApiKeyStore(database.prisma);
try {
  if (command === 'create') {
    const [name, roleList] = args;
    if (!name || !roleList || !/^[A-Za-z0-9_.-]{1,120}$/.test(name)) fail(`${USAGE}\n(name: letters, digits, _ . -; at most 120)`);
    const roles = roleList
      .split(',')
      .map((role) => role.trim())
      .filter(Boolean);
    const known = loadPolicy(config.auth.permissionsFile).roles;
    const unknown = roles.filter((role) => !known.includes(role));
    if (unknown.length > 0) fail(`unknown role(s) ${unknown.join(', ')}; the policy has ${known.join(', ')}`);
    const expiresFlag = args.indexOf('--expires');
    const expiresAt = expiresFlag >= 0 ? new Date(args[expiresFlag + 1] ?? '') : undefined;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) fail('--expires needs a date, e.g. 2027-01-01');
    try {
      const { key, record } = await store.create({ name, roles, createdBy: 'cli', ...(expiresAt ? { expiresAt } : {}) });
      console.log(`API key "${record.name}" (roles ${record.roles.join(', ')}${record.expiresAt ? `, expires ${record.expiresAt.toISOString()}` : ''}):`);
      console.log(key);
      console.log('Shown once: store it now. Send it as the x-api-key header.');
    } catch (error) {
      if (error instanceof ApiKeyNameTaken) fail(error.message);
      throw error;
    }
  } else if (command === 'list') {
    for (const key of await store.list()) {
      const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : key.expiresAt && key.expiresAt < new Date() ? 'expired' : 'active';
      console.log(`${key.name}\t${key.keyPrefix}…\t${key.roles.join(',')}\t${state}\tcreated ${key.createdDate.toISOString()}`);
    }
  } else {
    const [name] = args;
    if (!name) fail(USAGE);
    console.log((await store.revoke(name)) ? `revoked "${name}" (every gateway on this database refuses it from now on)` : `no active key named "${name}"`);
  }
} finally {
  await database.close();
}
