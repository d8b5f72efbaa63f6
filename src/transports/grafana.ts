// GET /api/prometheus/grafana/api/v1/rules: the embedded evaluator's rules at Grafana's own path and
// in its shape (src/modules/alert-rules/grafana-rules-answer.ts), so the console's alertmanager proxy can
// target the gateway as it targets Grafana and its alerts bell shows what fires here. A caller needs
// api.alert.list; failures come in the Prometheus API's shape, as on /prometheus.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AccessControl, Authentication } from '../auth/access.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Transport } from './transport.js';
import { grafanaRulesAnswer } from '../modules/alert-rules/index.js';
import type { AlertRuleService } from '../modules/alert-rules/index.js';
import { GRAFANA_RULES_PREFIX, prometheusFailure, sendGatewayFailure } from '../http/prometheus-failure.js';

const RULES_PATH = `${GRAFANA_RULES_PREFIX}/api/v1/rules`;
export const GRAFANA_RULES_API_ID = 'api.alert.list';

export interface GrafanaRulesOptions {
  alertRules: Pick<AlertRuleService, 'evaluatedRules'>;
  accessControl: AccessControl;
  logger: Logger;
}

function grafanaRulesRouter(options: GrafanaRulesOptions): express.Router {
  const router = express.Router();
  router.get(RULES_PATH, async (req: Request, res: Response, next: NextFunction) => {
    try {
      await options.accessControl.forRequest((res.locals.auth as Authentication | undefined) ?? {}, req.ip).admit([GRAFANA_RULES_API_ID]);
      const answer = grafanaRulesAnswer(await options.alertRules.evaluatedRules());
      res.setHeader('cache-control', 'no-store');
      res.json(answer);
    } catch (error) {
      if (error instanceof GatewayError && error.kind !== 'INTERNAL_SERVER_ERROR') return sendGatewayFailure(res, error);
      options.logger.error({ err: error, requestId: res.locals.requestId }, 'unexpected error in the Grafana rules API');
      if (res.headersSent) return next(error);
      prometheusFailure(res, 500, 'internal', `the rules could not be read (request ${String(res.locals.requestId)})`);
    }
  });
  router.use(GRAFANA_RULES_PREFIX, (req: Request, res: Response) =>
    prometheusFailure(res, req.path === '/api/v1/rules' ? 405 : 404, 'not_found', `${req.method} ${req.originalUrl.split('?')[0]} is not served: the gateway answers GET ${RULES_PATH}`),
  );
  return router;
}

/** Grafana's rules API door. */
export function grafanaTransport(options: GrafanaRulesOptions): Transport {
  return { name: 'grafana', apiPaths: [GRAFANA_RULES_PREFIX], routes: [grafanaRulesRouter(options)], paths: [GRAFANA_RULES_PREFIX] };
}
