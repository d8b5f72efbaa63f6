// The kept-answer door: the pipeline entered early, in front of express (src/http/fast-path.ts). The
// stages that can run on the raw request (request id, authentication, admission with the caller's
// own access and rate limit, security headers, CORS, log and metrics) run here; a kept REST read or
// GraphQL answer is written at once, and anything else is handed to the normal path unchanged.
import type http from 'node:http';
import type { AccessControl } from '../auth/access.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { Config } from '../config.js';
import type { OperationChecks } from '../graphql/pipeline/operation-checks.js';
import { withFastPath, type FastPathOptions } from '../http/fast-path.js';
import type { KeptReads } from '../http/kept-reads.js';
import { crossOriginPolicy, type UseCrossOriginOptions } from '../http/use-cross-origin.js';
import { requestObserver } from '../http/use-observability.js';
import type { Logger } from '../logger.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';

/** Largest GraphQL body the fast path reads ahead (a query and its variables; an ingest batch is far larger). */
const FAST_PATH_MAX_BODY_BYTES = 64 * 1024;
/** Largest REST POST read body the fast path reads ahead (a list's envelope: filters, sort, a page). */
const FAST_PATH_MAX_REST_BODY_BYTES = 16 * 1024;

export interface KeptAnswerDoorOptions {
  config: Config;
  logger: Logger;
  metrics: GatewayMetrics;
  authenticator: Authenticator;
  accessControl: AccessControl;
  crossOrigin: UseCrossOriginOptions;
  checks: OperationChecks;
  restReads: KeptReads;
  keptAnswerFor: FastPathOptions['graphql']['keptAnswerFor'];
  draining: () => boolean;
}

/** `normalPath` behind the kept-answer door, or as it is when FAST_PATH is off. */
export function withKeptAnswerDoor(normalPath: http.RequestListener, options: KeptAnswerDoorOptions): http.RequestListener {
  const { config, metrics, accessControl } = options;
  if (!config.http.fastPath) return normalPath;
  return withFastPath({
    normalPath,
    crossOrigin: crossOriginPolicy(options.crossOrigin),
    observe: requestObserver({ logger: options.logger, metrics }),
    served: (transport) => metrics.fastPathAnswer(transport),
    authenticator: options.authenticator,
    accessFor: (authentication, address) => accessControl.forRequest(authentication, address),
    draining: options.draining,
    restReads: options.restReads,
    graphql: { keptAnswerFor: options.keptAnswerFor, checks: options.checks },
    maxGraphQLBodyBytes: FAST_PATH_MAX_BODY_BYTES,
    maxRestBodyBytes: Math.min(FAST_PATH_MAX_REST_BODY_BYTES, config.http.bodyLimitBytes),
    handOverAfterMs: Math.min(1000, config.http.requestTimeoutMs),
  });
}
