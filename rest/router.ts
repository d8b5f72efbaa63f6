// Builds the express router for the REST table. Each entry's GraphQL operation is parsed and
// validated once here, then executed directly against the schema per request (no second HTTP hop),
// with the same context factory GraphQL clients get.
import express, { type NextFunction, type Request, type Response } from 'express';
import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { ContextFactory } from '../src/context.js';
import { GatewayError, GENERIC_FAILURE_MESSAGE, httpStatusOf, type ErrorCode } from '../src/errors.js';
import { classifyGraphQLError } from '../src/graphql/errors.js';
import type { Logger } from '../src/logger.js';
import { failureEnvelope, requestMsgid, successEnvelope } from './envelope.js';
import type { RestEndpoint } from './table.js';
import { compileValidator, type Validator } from './validation.js';

/** Paths the REST layer answers for, matched or not. */
export const REST_PREFIXES = ['/v2', '/alerts/v1'];

interface CompiledEndpoint {
  endpoint: RestEndpoint;
  documents: Map<string, DocumentNode>;
  validatePath?: Validator;
  validateQuery?: Validator;
  validateBody?: Validator;
}

export interface RestRouterOptions {
  schema: GraphQLSchema;
  endpoints: readonly RestEndpoint[];
  createContext: ContextFactory;
  logger: Logger;
  bodyLimitBytes: number;
  /** Body limit of entries marked largeBody (ingestion). */
  largeBodyLimitBytes: number;
}

const SINGLE_OPERATION = 'default';

function compile(endpoint: RestEndpoint, schema: GraphQLSchema): CompiledEndpoint {
  const sources = typeof endpoint.operation === 'string' ? { [SINGLE_OPERATION]: endpoint.operation } : endpoint.operation;
  if (typeof endpoint.operation !== 'string' && !endpoint.chooseOperation) {
    throw new Error(`REST entry ${endpoint.method} ${endpoint.path}: several operations need chooseOperation`);
  }
  const documents = new Map<string, DocumentNode>();
  for (const [name, source] of Object.entries(sources)) {
    const document = parse(source);
    const problems = validate(schema, document);
    if (problems.length > 0) {
      throw new Error(`REST entry ${endpoint.method} ${endpoint.path} (${name}): its operation does not fit the schema: ${problems.map(String).join('; ')}`);
    }
    documents.set(name, document);
  }
  return {
    endpoint,
    documents,
    validatePath: endpoint.pathSchema && compileValidator(endpoint.pathSchema),
    validateQuery: endpoint.querySchema && compileValidator(endpoint.querySchema),
    validateBody: endpoint.bodySchema && compileValidator(endpoint.bodySchema),
  };
}

/** Sends a failure envelope; the one place that writes REST failures. */
export function sendFailure(res: Response, apiId: string, msgid: string | undefined, error: GatewayError): void {
  res.status(error.httpStatus).json(failureEnvelope(apiId, msgid, error.kind, error.code, error.message));
}

/** Turns body-parser failures (bad JSON, too large, bad charset) into the contract's failure envelope. */
function bodyParseFailure(error: unknown, code: ErrorCode, limit: number): GatewayError | undefined {
  const type = (error as { type?: unknown })?.type;
  if (type === 'entity.parse.failed') return new GatewayError(code, `the request body is not valid JSON: ${(error as Error).message}`);
  if (type === 'entity.too.large') return new GatewayError(code, `the request body is larger than the ${limit}-byte limit`);
  if (typeof type === 'string' && (error as { status?: number }).status === 400) return new GatewayError(code, (error as Error).message);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new GatewayError(code, (error as Error).message);
  return undefined;
}

export function createRestRouter(options: RestRouterOptions): express.Router {
  const router = express.Router();
  const parseJson = express.json({ limit: options.bodyLimitBytes, strict: false, type: () => true });
  const parseLargeJson = express.json({ limit: options.largeBodyLimitBytes, strict: false, type: () => true });

  for (const compiled of options.endpoints.map((endpoint) => compile(endpoint, options.schema))) {
    const { endpoint } = compiled;
    const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';

    const handle = async (req: Request, res: Response) => {
      const body: unknown = req.body === undefined ? {} : req.body;
      const msgid = requestMsgid(body);
      const fail = (error: GatewayError) => sendFailure(res, endpoint.apiId, msgid, error);
      const invalid =
        compiled.validatePath?.(req.params) ??
        compiled.validateQuery?.(req.query) ??
        (compiled.validateBody ? compiled.validateBody(body) : undefined);
      if (invalid !== undefined) return fail(new GatewayError(endpoint.invalidInputCode, invalid));

      const context = options.createContext(res.locals.requestId as string);
      const input = { path: req.params as Record<string, string>, query: req.query as Record<string, unknown>, body: (body ?? {}) as Record<string, unknown> };
      let variableValues: Record<string, unknown>;
      let document: DocumentNode;
      try {
        variableValues = endpoint.variables(input);
        document = compiled.documents.get(endpoint.chooseOperation?.(input) ?? SINGLE_OPERATION)!;
      } catch (error) {
        if (error instanceof GatewayError) return fail(error);
        throw error;
      }
      const outcome = await execute({ schema: options.schema, document, variableValues, contextValue: context });
      const firstError = outcome.errors?.[0];
      if (firstError) {
        const classified = classifyGraphQLError(firstError);
        if (classified.kind === 'gateway') {
          if (classified.error.code === 'DATABASE_UNAVAILABLE') context.logger.warn({ err: firstError.originalError }, 'database unavailable');
          return fail(classified.error);
        }
        if (classified.kind === 'input') return fail(new GatewayError(endpoint.invalidInputCode, classified.message));
        context.logger.error({ err: classified.error, apiId: endpoint.apiId }, 'unexpected error in REST call');
        return fail(new GatewayError('INTERNAL_SERVER_ERROR', GENERIC_FAILURE_MESSAGE));
      }
      res.status(200).json(successEnvelope(endpoint.apiId, msgid, endpoint.result(outcome.data ?? {})));
    };

    const [parse, limit] = endpoint.largeBody ? [parseLargeJson, options.largeBodyLimitBytes] : [parseJson, options.bodyLimitBytes];
    router[method](endpoint.path, (req: Request, res: Response, next: NextFunction) => {
      parse(req, res, (parseError?: unknown) => {
        if (parseError) {
          const failure = bodyParseFailure(parseError, endpoint.invalidInputCode, limit);
          if (failure) return sendFailure(res, endpoint.apiId, undefined, failure);
          return next(parseError);
        }
        handle(req, res).catch(next);
      });
    });
  }

  // Anything else under the REST prefixes: the original's ROUTE_NOT_FOUND.
  router.use(REST_PREFIXES, (req: Request, res: Response) => {
    sendFailure(res, 'api', undefined, new GatewayError('ROUTE_NOT_FOUND', `Route not found: ${req.method} ${req.originalUrl.split('?')[0]}`));
  });
  return router;
}

/** Last-resort handler: an error nobody expected becomes a generic failure envelope, logged with the request id. */
export function restErrorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unhandled error');
    if (res.headersSent) return;
    const status = httpStatusOf('INTERNAL_SERVER_ERROR');
    res.status(status).json(failureEnvelope('api', undefined, 'INTERNAL_SERVER_ERROR', 'INTERNAL_SERVER_ERROR', GENERIC_FAILURE_MESSAGE));
  };
}
