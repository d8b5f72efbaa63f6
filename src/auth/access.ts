// The one access check. Both transports pass it with an API id: the REST router before it reads a
// body (so a caller without the right gets 401/403 before any work), and every GraphQL root field
// through the resolver guard (guard.ts), which REST calls run through too. Order: credentials (401),
// permission (403), rate limit (429).
import { GatewayError } from '../errors.js';
import { PUBLIC_API_ID } from './field-api-ids.js';
import type { PermissionPolicy } from './policy.js';
import type { Budget, RateLimitSettings, Take } from './rate-limit.js';

/** Decides a rate limit: at once (in memory) or after a round trip (the shared store). */
export interface RateLimitDecider {
  /** Takes `tokens` (default 1, never more than the budget's burst) from the caller's bucket, or none. */
  take(budget: Budget, callerKey: string, tokens?: number): Take | Promise<Take>;
  readonly settings: RateLimitSettings;
}

/** What this request's GraphQL document paid from the caller's general budget (the `rateLimit` field). */
export interface RateLimitStatus {
  /** Most tokens the budget holds. */
  limit: number;
  /** Tokens the document paid. */
  cost: number;
  /** Whole tokens left after it. */
  remaining: number;
  /** When the budget is full again. */
  resetAt: Date;
}

export interface AccessControlOptions {
  /** GraphQL cost one rate-limit token buys: a document pays ceil(cost / costPerToken) tokens, at least 1. Default 250. */
  costPerToken?: number;
}

/** How the caller proved who it is. */
export type CredentialKind = 'none' | 'jwt' | 'session' | 'api-key';

export interface Caller {
  /** User id (JWT `sub`, the session's user id) or `apikey:<name>`; recorded as created_by/updated_by. */
  id: string;
  roles: readonly string[];
  via: CredentialKind;
  /** AUTH_MODE=none: every call is allowed, as the original with RBAC off. */
  unrestricted?: boolean;
  /** When the credential stops being valid (JWT exp, session expiry; epoch ms): long-lived connections check again then. */
  expiresAt?: number;
}

/**
 * What authentication found for one request: a caller, a refusal (credentials were sent and did not
 * hold, or the store behind them failed), or neither (no credentials: anonymous).
 */
export interface Authentication {
  caller?: Caller;
  failure?: GatewayError;
  /** Tokens this request already paid before it was handed on (RequestAccess.handOn): drawn before any is taken. */
  paid?: PaidTokens;
}

/**
 * Rate-limit tokens one request paid through one RequestAccess before it was handed on to another
 * path, which admits it again (the fast path hands a request it admitted to express): what that
 * path then charges draws on them first, so the caller pays once. Known once the decisions made
 * elsewhere (the shared store) are.
 */
export class PaidTokens {
  private left: Record<Budget, number> | Promise<Record<Budget, number>>;

  constructor(paid: Record<Budget, number> | Promise<Record<Budget, number>>) {
    this.left = paid instanceof Promise ? paid.then((known) => (this.left = { ...known })) : { ...paid };
  }

  /** Draws up to `tokens` of `budget`; answers how many are still to take. */
  draw(budget: Budget, tokens: number): number | Promise<number> {
    const left = this.left;
    // Its own callback, registered first, has replaced the promise when this one runs.
    if (left instanceof Promise) return left.then(() => this.draw(budget, tokens));
    const drawn = Math.min(left[budget], tokens);
    left[budget] -= drawn;
    return tokens - drawn;
  }
}

/** AUTH_MODE=none: the only caller there is, like the original's SYSTEM user with RBAC off. */
export const SYSTEM_CALLER: Caller = Object.freeze({ id: 'SYSTEM', roles: Object.freeze(['admin']), via: 'none', unrestricted: true });

export const INGEST_API_ID = 'api.data.in';

export const NO_CREDENTIALS_MESSAGE = 'Authentication is required: send a bearer token (Authorization: Bearer <jwt>), the session cookie or an API key (x-api-key).';

/** A RATE_LIMITED failure; GraphQL answers it with HTTP 429 and Retry-After too (Apollo reads `extensions.http`). */
export class RateLimitedError extends GatewayError {
  readonly extensions: { http: { status: number; headers: Map<string, string> } };

  constructor(budget: Budget, retryAfterSeconds: number) {
    const [what, settings] = budget === 'ingest' ? ['ingestion calls', 'RATE_LIMIT_INGEST_RPS, RATE_LIMIT_INGEST_BURST'] : ['calls', 'RATE_LIMIT_RPS, RATE_LIMIT_BURST'];
    super('RATE_LIMITED', `Too many ${what} from this caller (${settings}); retry after ${retryAfterSeconds} s.`, { headers: { 'retry-after': String(retryAfterSeconds) } });
    this.extensions = { http: { status: 429, headers: new Map([['retry-after', String(retryAfterSeconds)]]) } };
  }
}

/** A document that costs more tokens than the caller's budget ever holds: waiting would not help, so no Retry-After. */
export class CostOverRateLimitError extends GatewayError {
  readonly extensions = { http: { status: 429 } };

  constructor(cost: number, tokens: number, costPerToken: number, limit: number) {
    super(
      'QUERY_COST_OVER_RATE_LIMIT',
      `This operation costs ${cost} (${tokens} rate-limit tokens at ${costPerToken} per token); a caller's budget holds at most ${limit} tokens. Ask for smaller pages (first) or fewer fields.`,
    );
  }
}

export class AccessControl {
  readonly costPerToken: number;

  constructor(
    readonly policy: Pick<PermissionPolicy, 'allows' | 'rolesFor' | 'roles'>,
    readonly limiter: RateLimitDecider,
    options: AccessControlOptions = {},
  ) {
    this.costPerToken = options.costPerToken ?? 250;
  }

  /** Tokens a GraphQL document of `cost` pays. */
  tokensFor(cost: number): number {
    return Math.max(1, Math.ceil(cost / this.costPerToken));
  }

  /**
   * What decides this caller's access, as a key: callers with equal keys are admitted to exactly the
   * same API ids (the same roles of the policy, or unrestricted), so one evaluation may serve them all.
   */
  accessKeyOf(caller: Caller | undefined): string {
    if (!caller) return 'anonymous';
    if (caller.unrestricted) return 'unrestricted';
    const known = new Set(this.policy.roles);
    return `roles:${[...new Set(caller.roles)]
      .filter((role) => known.has(role))
      .sort()
      .join(',')}`;
  }

  /**
   * The same permissions without rate limits: for work done on a caller's behalf that the caller
   * already paid for when it was admitted (the events of a subscription it holds).
   */
  withoutRateLimits(): AccessControl {
    return new AccessControl(this.policy, UNLIMITED, { costPerToken: this.costPerToken });
  }

  /** `clientAddress` keys the rate limit of callers without an identity. */
  forRequest(authentication: Authentication, clientAddress: string | undefined): RequestAccess {
    return new RequestAccess(this, authentication, clientAddress ?? 'unknown');
  }
}

/** One request's view of access control; REST and GraphQL resolvers call `admit` with API ids. */
export class RequestAccess {
  // Tokens the REST router already took for this request, so the field it runs does not pay twice.
  private readonly prepaid: Record<Budget, number> = { general: 0, ingest: 0 };
  // The last rate-limit decision still being made elsewhere (the shared store), if any.
  private pending: Promise<void> | undefined;
  // Cost of the GraphQL documents priced and not yet paid for (one, or each of a batch).
  private unpaidCost = 0;
  // The last document charge: the root fields of a paid document wait for it and share its refusal.
  private documentCharge: { decided: void | Promise<void>; refusal?: unknown } | undefined;
  private lastCharge: RateLimitStatus | undefined;
  // Tokens taken from the caller's budgets for this request (handed on with it: handOn).
  private readonly spent: Record<Budget, number> = { general: 0, ingest: 0 };

  constructor(
    private readonly control: AccessControl,
    readonly authentication: Authentication,
    private readonly clientAddress: string,
  ) {}

  get caller(): Caller | undefined {
    return this.authentication.caller;
  }

  /**
   * Throws UNAUTHENTICATED, FORBIDDEN or RATE_LIMITED unless the caller may call one of `apiIds`
   * now. `prepay` (the REST router) keeps the token taken here for the field the call then runs.
   * Answers a promise only when the rate limit is decided elsewhere (RATE_LIMIT_STORE=postgres).
   */
  admit(apiIds: readonly string[], options: { prepay?: boolean } = {}): void | Promise<void> {
    this.authorize(apiIds);
    const budget: Budget = apiIds.includes(INGEST_API_ID) ? 'ingest' : 'general';
    if (this.prepaid[budget] > 0) {
      this.prepaid[budget] -= 1;
      return;
    }
    // A priced GraphQL document pays its cost at its first root field admitted; the others share
    // that decision. Ingestion keeps its own budget of calls.
    if (budget === 'general' && this.unpaidCost > 0) {
      const cost = this.unpaidCost;
      this.unpaidCost = 0;
      return this.payDocument(cost);
    }
    if (budget === 'general' && this.documentCharge) return this.documentOutcome(this.documentCharge);
    return this.decide(budget, 1, () => {
      if (options.prepay) this.prepaid[budget] += 1;
    });
  }

  /**
   * Remembers the cost of a GraphQL document this request runs (after validation), to be paid by
   * its first root field admitted: credentials and permissions are still checked before the rate
   * limit, and a document whose fields are all refused pays nothing.
   */
  priceDocument(cost: number): void {
    this.unpaidCost += cost;
  }

  /**
   * Takes the tokens a GraphQL document of `cost` pays (see AccessControl.tokensFor) from the
   * caller's general budget now. Throws RATE_LIMITED (not enough tokens yet) or
   * QUERY_COST_OVER_RATE_LIMIT (more than the budget ever holds); answers a promise only when the
   * rate limit is decided elsewhere (RATE_LIMIT_STORE=postgres). Checks no permission: `authorize` first.
   */
  charge(cost: number): void | Promise<void> {
    const tokens = this.control.tokensFor(cost);
    const { perSecond, burst } = this.control.limiter.settings.general;
    if (perSecond > 0 && tokens > burst) throw new CostOverRateLimitError(cost, tokens, this.control.costPerToken, burst);
    return this.decide('general', tokens, ({ state }) => {
      if (state) this.lastCharge = { limit: burst, cost: tokens, remaining: state.remaining, resetAt: new Date(state.fullAt) };
    });
  }

  /** The caller's general budget after this request's last document charge; undefined when calls are not limited. */
  get rateLimit(): RateLimitStatus | undefined {
    return this.lastCharge;
  }

  private payDocument(cost: number): void | Promise<void> {
    const charge: { decided: void | Promise<void>; refusal?: unknown } = { decided: undefined };
    this.documentCharge = charge;
    try {
      charge.decided = this.charge(cost);
    } catch (error) {
      charge.refusal = error;
    }
    return this.documentOutcome(charge);
  }

  private documentOutcome(charge: { decided: void | Promise<void>; refusal?: unknown }): void | Promise<void> {
    if ('refusal' in charge) throw charge.refusal;
    return charge.decided;
  }

  /**
   * This request's authentication, to hand the request on to another path that admits it again
   * with a RequestAccess of its own (the fast path handing a request to express): it carries the
   * tokens taken here, once their decisions are made, for that path to draw on instead of taking
   * them again.
   */
  handOn(): Authentication {
    const spent = () => ({ ...this.spent });
    return { ...this.authentication, paid: new PaidTokens(this.pending ? this.pending.then(spent) : spent()) };
  }

  private decide(budget: Budget, tokens: number, allowed: (taken: Take & { allowed: true }) => void): void | Promise<void> {
    const { caller, paid } = this.authentication;
    const callerKey = caller ? `${caller.via}:${caller.id}` : `address:${this.clientAddress}`;
    const take = (owed: number): void | Promise<void> => {
      // Paid already, before the request was handed on.
      if (owed === 0) return allowed({ allowed: true });
      const settle = (taken: Take): void => {
        if (!taken.allowed) throw new RateLimitedError(budget, taken.retryAfterSeconds);
        this.spent[budget] += owed;
        allowed(taken);
      };
      const taken = this.control.limiter.take(budget, callerKey, owed);
      if (taken instanceof Promise) return taken.then(settle);
      settle(taken);
    };
    const decide = (): void | Promise<void> => {
      const owed = paid ? paid.draw(budget, tokens) : tokens;
      return owed instanceof Promise ? owed.then(take) : take(owed);
    };
    // Decisions made elsewhere are taken one after another, in the order the fields asked: the
    // fields of one GraphQL request run side by side, and the one refused must be the last one.
    if (this.pending) return this.queue(this.pending.then(decide));
    const decided = decide();
    if (decided) return this.queue(decided);
  }

  /**
   * Throws UNAUTHENTICATED or FORBIDDEN unless the caller may call one of `apiIds` (a public field:
   * unless the credentials sent did not hold), taking no token: for records reached inside a field the request already paid for (links, `node`), which
   * must be no more open than the root field that reads them.
   */
  authorize(apiIds: readonly string[]): void {
    const { caller, failure } = this.authentication;
    // Credentials sent that do not hold are refused whatever is asked, public fields included: read
    // as no credentials, the caller would never learn that its token or key is wrong.
    if (failure) throw failure;
    if (apiIds.length === 1 && apiIds[0] === PUBLIC_API_ID) return;
    if (!caller) throw new GatewayError('UNAUTHENTICATED', NO_CREDENTIALS_MESSAGE);
    if (!caller.unrestricted && !this.control.policy.allows(caller.roles, apiIds)) {
      const roles = this.control.policy.rolesFor(apiIds);
      throw new GatewayError(
        'FORBIDDEN',
        `Access denied. The caller does not have permission to perform this action (${apiIds.join(' or ')}). ` +
          (roles.length > 0 ? `The following roles have access to this action: ${roles.join(', ')}.` : 'No role has access to this action.'),
      );
    }
  }

  private queue(decision: Promise<void>): Promise<void> {
    this.pending = decision.catch(() => undefined);
    return decision;
  }

  /** `admit` for each list of API ids in turn; synchronous when every decision is. */
  admitEach(apiIdLists: readonly (readonly string[])[]): void | Promise<void> {
    for (let index = 0; index < apiIdLists.length; index += 1) {
      const admitted = this.admit(apiIdLists[index]!);
      if (admitted) return admitted.then(() => this.admitEach(apiIdLists.slice(index + 1)));
    }
  }
}

/** A rate limiter that allows everything. */
const UNLIMITED: RateLimitDecider = { take: () => ({ allowed: true }), settings: { general: { perSecond: 0, burst: 1 }, ingest: { perSecond: 0, burst: 1 } } };

/** Access for contexts made without access control (tools, older call sites): SYSTEM, no limits. */
const OPEN = new AccessControl({ allows: () => true, rolesFor: () => [], roles: [] }, UNLIMITED);

export function unrestrictedAccess(): RequestAccess {
  return OPEN.forRequest({ caller: SYSTEM_CALLER }, 'local');
}
