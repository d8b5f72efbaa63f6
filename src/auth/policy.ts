// The permission policy: roles → groups → API ids, read once at start-up from a JSON file
// (config/permissions.json unless PERMISSIONS_FILE names another). A bad file stops the start-up
// with every problem listed, as a bad environment variable does.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { projectPath } from '../paths.js';

export const DEFAULT_PERMISSIONS_FILE = projectPath('config', 'permissions.json');

const apiIdPattern = z.string().regex(/^(\*|[A-Za-z0-9_.-]+\*?)$/, 'must be an API id (api.datasets.read), a prefix ending in * (api.alert.*), or *');

const policyFileSchema = z.object({
  description: z.string().optional(),
  roles: z.record(z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'role names are letters, digits and _.:- (at most 64)'), z.array(z.string()).min(1)),
  groups: z.record(z.string().min(1), z.array(apiIdPattern)),
});

export type PolicyFile = z.infer<typeof policyFileSchema>;

export class PolicyError extends Error {
  constructor(file: string, problems: string[]) {
    super(`invalid permissions file ${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'PolicyError';
  }
}

interface Grant {
  all: boolean;
  ids: Set<string>;
  prefixes: string[];
}

/** What each role may call. Roles the policy does not name may call nothing. */
export class PermissionPolicy {
  private readonly grants = new Map<string, Grant>();

  constructor(readonly file: PolicyFile) {
    for (const [role, groups] of Object.entries(file.roles)) {
      const grant: Grant = { all: false, ids: new Set(), prefixes: [] };
      for (const group of groups) {
        for (const pattern of file.groups[group] ?? []) {
          if (pattern === '*') grant.all = true;
          else if (pattern.endsWith('*')) grant.prefixes.push(pattern.slice(0, -1));
          else grant.ids.add(pattern);
        }
      }
      this.grants.set(role, grant);
    }
  }

  get roles(): string[] {
    return [...this.grants.keys()];
  }

  /** True when one of the roles may call one of the API ids. */
  allows(roles: readonly string[], apiIds: readonly string[]): boolean {
    for (const role of roles) {
      const grant = this.grants.get(role);
      if (!grant) continue;
      if (grant.all) return true;
      for (const id of apiIds) {
        if (grant.ids.has(id) || grant.prefixes.some((prefix) => id.startsWith(prefix))) return true;
      }
    }
    return false;
  }

  /** The roles that may call one of the API ids (for the 403 message, as the original lists them). */
  rolesFor(apiIds: readonly string[]): string[] {
    return this.roles.filter((role) => this.allows([role], apiIds));
  }
}

export function parsePolicy(text: string, file: string): PermissionPolicy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  const parsed = policyFileSchema.safeParse(json);
  if (!parsed.success)
    throw new PolicyError(
      file,
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  const unknownGroups = Object.entries(parsed.data.roles).flatMap(([role, groups]) =>
    groups.filter((group) => !(group in parsed.data.groups)).map((group) => `roles.${role}: no group named "${group}"`),
  );
  if (unknownGroups.length > 0) throw new PolicyError(file, unknownGroups);
  return new PermissionPolicy(parsed.data);
}

export function loadPolicy(file = DEFAULT_PERMISSIONS_FILE): PermissionPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyError(file, [`cannot be read: ${(error as Error).message}`]);
  }
  return parsePolicy(text, file);
}
