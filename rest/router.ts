// Builds the express router for the REST table. Each entry's GraphQL operation is parsed and
// validated once here, then executed directly against the schema per request (no second HTTP hop),
// with the same context factory GraphQL clients get.
import express, { type NextFunction, type Request, type Response } from 'express';
import { inDomainSpelling, resultSpellingOf, type ResultSpelling } from './result-spelling.js';
import { type DocumentNode, type GraphQLSchema, Kind, parse, validate } from 'graphql';
import type { Authentication } from '../src/auth/access.js';
import type { ContextFactory, GatewayContext } from '../src/context.js';
import { GatewayError, GENERIC_FAILURE_MESSAGE, type ErrorCode } from '../src/errors.js';
import type { ExecuteCompiled } from '../src/graphql/compiled-execution.js';
import { classifyGraphQLError } from '../src/graphql/errors.js';
import type { Logger } from '../src/logger.js';
import { madeOfAnswer, type ReadPlan, type ReadPlanner } from '../src/graphql/published-reads.js';
import type { CachePart, PublishedCache } from '../src/platform/cache/published-cache.js';
import { ANSWER_END, answerEtag, prepareResult, type PreparedAnswer } from '../src/platform/cache/prepared-answer.js';
import { describeJsonLimitViolation, findJsonLimitViolation, type JsonLimits } from '../src/validation/json-limits.js';
import { requestMsgid, sendFailure, successEnvelopeHead, successEnvelopeJson } from '../src/http/envelope.js';
import { writeKeptAnswer } from '../src/http/kept-answer.js';
import type { KeptReads } from '../src/http/kept-reads.js';
import { unlessParsedAhead } from '../src/http/body-read-ahead.js';
import { asksToRespondAsync } from '../src/http/respond-async.js';
import { jsonBodyOf } from '../src/platform/json/written-json.js';
import { sizeText } from '../src/config/values.js';
import { MultipartRefused, receiveSingleFile } from './multipart.js';
import { keyOfRepeatedBodies } from './repeated-reads.js';
import { presentationOf, type RestEndpoint, type RestInput } from './table.js';
import { compileValidator, type Validator } from './validation.js';
import { RouteTable, type Step } from './route-table.js';

/** Paths the REST layer answers for, matched or not. */
export const REST_PREFIXES = ['/v2', '/alerts/v1', '/druid/coordinator', '/system/data/v1'];

interface CompiledEndpoint {
  endpoint: RestEndpoint;
  documents: Map<string, DocumentNode>;
  /** Where each operation's result holds enum values the domain spells otherwise (result-spelling.ts). */
  spellings: Map<string, ResultSpelling>;
  /** The operations (by name) whose results the published cache may keep, with what they are made of. */
  cacheable: Map<string, ReadPlan>;
  validatePath?: Validator;
  validateQuery?: Validator;
  validateBody?: Validator;
}

export interface RestRouterOptions {
  schema: GraphQLSchema;
  /** Runs an entry's operation (the pipeline's compiled executor, src/graphql/compiled-execution.ts). */
  execute: ExecuteCompiled;
  endpoints: readonly RestEndpoint[];
  createContext: ContextFactory;
  logger: Logger;
  bodyLimitBytes: number;
  /** Body limit of entries marked largeBody (ingestion). */
  largeBodyLimitBytes: number;
  /** File size limit of entries marked multipart (connector registration). */
  uploadLimitBytes?: number;
  /**
   * Longest string or object key and longest array in a JSON body (JSON_MAX_STRING_LENGTH,
   * JSON_MAX_ARRAY_LENGTH), checked as soon as the body is parsed, before the entry's schema.
   */
  jsonLimits: JsonLimits;
  /**
   * The published cache, and which operations read published records only (the modules'
   * declarations, src/graphql/published-reads.ts); with it, an entry running such an operation keeps
   * its result until a change to what it is made of.
   */
  publishedReads?: { cache: PublishedCache; planOf: ReadPlanner };
  /**
   * Where the GET reads answered from the published cache are noted by URL, and the POST reads whose
   * results it may keep are declared by path, for the fast path (src/http/fast-path.ts).
   */
  keptReads?: KeptReads;
}

const SINGLE_OPERATION = 'default';
/** Most results each cached entry keeps (distinct requests: ids, pages, filters). */
const RESULT_CACHE_ENTRIES = 2_000;

/** A bare JSON answer (no envelope) with the final newline every REST answer has. */
function withAnswerEnd(body: Buffer | string): Buffer | string {
  return typeof body === 'string' ? `${body}${ANSWER_END}` : Buffer.concat([body, Buffer.from(ANSWER_END)]);
}

/** Sends a success envelope around the serialised result; a GET gets the result's ETag (304 when the caller has it). */
function sendSuccess(req: Request, res: Response, apiId: string, msgid: string | undefined, json: string, status = 200): void {
  if (req.method === 'GET' && status === 200) res.set('etag', answerEtag(json));
  // express answers 304 without a body when If-None-Match holds this ETag (req.fresh).
  res
    .status(status)
    .type('json')
    .send(successEnvelopeJson(apiId, msgid, json));
}

function compile(endpoint: RestEndpoint, schema: GraphQLSchema, planOf: ReadPlanner | undefined): CompiledEndpoint {
  const sources = typeof endpoint.operation === 'string' ? { [SINGLE_OPERATION]: endpoint.operation } : endpoint.operation;
  if (typeof endpoint.operation !== 'string' && !endpoint.chooseOperation) {
    throw new Error(`REST entry ${endpoint.method} ${endpoint.path}: several operations need chooseOperation`);
  }
  const declared = new Set<ErrorCode>([endpoint.invalidInputCode, ...endpoint.errorCodes]);
  const undeclared = Object.keys(endpoint.errorPresentation ?? {}).filter((code) => !declared.has(code as ErrorCode));
  if (undeclared.length > 0) throw new Error(`REST entry ${endpoint.method} ${endpoint.path}: errorPresentation names codes it does not declare: ${undeclared.join(', ')}`);
  const documents = new Map<string, DocumentNode>();
  const spellings = new Map<string, ResultSpelling>();
  for (const [name, source] of Object.entries(sources)) {
    const document = parse(source);
    const problems = validate(schema, document);
    if (problems.length > 0) {
      throw new Error(`REST entry ${endpoint.method} ${endpoint.path} (${name}): its operation does not fit the schema: ${problems.map(String).join('; ')}`);
    }
    documents.set(name, document);
    spellings.set(name, resultSpellingOf(schema, document));
  }
  const cacheable = new Map<string, ReadPlan>();
  // Results that go out as the operation's data mapped (not bare, not another media type), of one query reading published records only.
  // Not with response headers: a kept answer is its body alone and would go out without them.
  if (planOf && !endpoint.bareResult && !endpoint.contentType && !endpoint.responseHeaders) {
    for (const [name, document] of documents) {
      const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
      const plan = operations.length === 1 ? planOf(document, operations[0]!) : null;
      if (plan) cacheable.set(name, plan);
    }
  }
  return {
    endpoint,
    documents,
    spellings,
    cacheable,
    validatePath: endpoint.pathSchema && compileValidator(endpoint.pathSchema),
    validateQuery: endpoint.querySchema && compileValidator(endpoint.querySchema),
    validateBody: endpoint.bodySchema && compileValidator(endpoint.bodySchema),
  };
}

/** Sends a failure envelope, shown as `shown` says (an entry's presentation); the one place that writes REST failures. */
/** Whether the request carries a body (a length above zero, or a chunked one). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A limit and the setting it comes from, named when a request is refused for passing it. */
interface NamedLimit {
  bytes: number;
  setting: string;
}

/** Turns body-parser failures (bad JSON, too large, bad charset) into the contract's failure envelope. */
function bodyParseFailure(error: unknown, code: ErrorCode, limit: NamedLimit): GatewayError | undefined {
  const type = (error as { type?: unknown })?.type;
  if (type === 'entity.parse.failed') return new GatewayError(code, `the request body is not valid JSON: ${(error as Error).message}`);
  if (type === 'entity.too.large')
    return new GatewayError(code, `the request body is larger than the ${limit.bytes}-byte limit (${limit.setting}=${sizeText(limit.bytes)}); send a smaller body or raise ${limit.setting}`);
  if (typeof type === 'string' && (error as { status?: number }).status === 400) return new GatewayError(code, (error as Error).message);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new GatewayError(code, (error as Error).message);
  return undefined;
}

export function createRestRouter(options: RestRouterOptions): express.Router {
  const router = express.Router();
  // One route table for every entry (route-table.ts): a request finds its entry in one look-up
  // instead of walking express's layers, three per entry.
  const routes = new RouteTable();
  const bodyLimit: NamedLimit = { bytes: options.bodyLimitBytes, setting: 'REQUEST_BODY_LIMIT' };
  // A body the fast path read ahead (src/http/body-read-ahead.ts) is not parsed again.
  const json: JsonBodyReader = { parse: unlessParsedAhead(express.json({ limit: options.bodyLimitBytes, strict: false, type: () => true })), limit: bodyLimit, jsonLimits: options.jsonLimits };
  const largeJson: JsonBodyReader = {
    parse: unlessParsedAhead(express.json({ limit: options.largeBodyLimitBytes, strict: false, type: () => true })),
    limit: { bytes: options.largeBodyLimitBytes, setting: 'INGEST_BODY_LIMIT' },
    jsonLimits: options.jsonLimits,
  };
  const uploadLimit =
    options.uploadLimitBytes === undefined ? { limitBytes: bodyLimit.bytes, setting: bodyLimit.setting } : { limitBytes: options.uploadLimitBytes, setting: 'CONNECTOR_UPLOAD_LIMIT' };

  const published = options.publishedReads;
  for (const compiled of options.endpoints.map((endpoint) => compile(endpoint, options.schema, published?.planOf))) {
    const { endpoint } = compiled;
    // A kept result is its envelope's prepared tail (src/platform/cache/prepared-answer.ts), ETag included.
    const results: CachePart<PreparedAnswer> | undefined =
      published && compiled.cacheable.size > 0 ? published.cache.part<PreparedAnswer>(`REST ${endpoint.method} ${endpoint.path}`, RESULT_CACHE_ENTRIES) : undefined;
    /** Answers a kept result; a GET without a body is noted for the fast path, which then serves this URL itself. */
    const sendKept = (req: Request, res: Response, msgid: string | undefined, key: string, kept: PreparedAnswer) => {
      if (options.keptReads && req.method === 'GET' && !hasBody(req) && results) {
        options.keptReads.remember(req.originalUrl, { apiId: endpoint.apiId, route: endpoint.path, datasetId: res.locals.datasetId as string | undefined, part: results, key });
      }
      writeKeptAnswer(req.method, req.headers, res, kept, successEnvelopeHead(endpoint.apiId, msgid));
    };
    const failEntry = (res: Response, msgid: string | undefined, error: GatewayError) => sendFailure(res, endpoint.apiId, msgid, error, presentationOf(endpoint, error));

    // The steps from a request's input to the key of its kept result, shared by the route and the
    // fast path's kept POST reads (keyOfBody), so both find the same result for the same request.
    const invalidInput = (path: unknown, query: unknown, body: unknown) =>
      compiled.validatePath?.(path) ?? compiled.validateQuery?.(query) ?? (compiled.validateBody ? compiled.validateBody(body) : undefined);
    /** The operation an input runs, with its variables; throws the entry's GatewayError for an input it refuses. */
    const operationFor = (input: RestInput) => ({
      variableValues: endpoint.variables(input),
      operationName: endpoint.chooseOperation?.(input) ?? SINGLE_OPERATION,
      selection: endpoint.selection?.(input) ?? null,
    });
    const keyFor = (operationName: string, variableValues: Record<string, unknown>, selection: readonly string[] | null) =>
      results && compiled.cacheable.has(operationName) ? `${operationName}\u0000${JSON.stringify(variableValues)}${selection ? `\u0000${JSON.stringify(selection)}` : ''}` : undefined;

    const handle = async (req: Request, res: Response, file?: unknown) => {
      const body: unknown = req.body === undefined ? {} : req.body;
      const msgid = requestMsgid(body);
      const fail = (error: GatewayError) => failEntry(res, msgid, error);
      // A text the database cannot take (a NUL), or a selection longer than a read takes, is this entry's bad input, under its own code.
      const failRefused = (error: GatewayError) => fail(error.code === 'INVALID_INPUT' ? new GatewayError(endpoint.invalidInputCode, error.parts ?? error.message) : error);
      const input: RestInput = { path: req.params as Record<string, string>, query: req.query, body: (body ?? {}) as Record<string, unknown>, file, respondAsync: asksToRespondAsync(req.headers) };
      const invalid = invalidInput(req.params, req.query, body);
      if (invalid !== undefined) return fail(new GatewayError(endpoint.invalidInputCode, invalid));

      const context = (res.locals.context as GatewayContext | undefined) ?? options.createContext(res.locals.requestId as string, res.locals.auth as Authentication | undefined, req.ip);
      context.apiId = endpoint.apiId;
      let variableValues: Record<string, unknown>;
      let operationName: string;
      let selection: readonly string[] | null;
      try {
        ({ variableValues, operationName, selection } = operationFor(input));
      } catch (error) {
        if (error instanceof GatewayError) return fail(error);
        throw error;
      }
      const document = compiled.documents.get(operationName)!;
      const plan = results && compiled.cacheable.get(operationName);
      const madeOf = plan && madeOfAnswer(plan, variableValues);
      const cacheKey = keyFor(operationName, variableValues, selection);
      const cached = cacheKey ? results!.get(cacheKey) : undefined;
      if (cached) return sendKept(req, res, msgid, cacheKey!, cached);
      const start = madeOf && results.since(madeOf.tables);
      // Each of an entry's documents holds one operation: the name only tells the documents apart.
      const outcome = await options.execute({ document, documentKey: `REST ${endpoint.method} ${endpoint.path} ${operationName}`, variableValues, contextValue: context });
      const firstError = outcome.errors?.[0];
      if (firstError) {
        const classified = classifyGraphQLError(firstError);
        if (classified.kind === 'gateway') {
          if (classified.error.code === 'DATABASE_UNAVAILABLE') context.logger.warn({ err: firstError.originalError }, 'database unavailable');
          return failRefused(classified.error);
        }
        if (classified.kind === 'input') return fail(new GatewayError(endpoint.invalidInputCode, classified.message));
        context.logger.error({ err: classified.error, apiId: endpoint.apiId }, 'unexpected error in REST call');
        return fail(new GatewayError('INTERNAL_SERVER_ERROR', GENERIC_FAILURE_MESSAGE, { cause: classified.error }));
      }
      // A result cut at its row bound says so (docs/queries.md "Running templates safely"); such results are
      // never kept (they read events, not published records), so no kept answer needs the header.
      if (context.resultRowLimit !== undefined) res.set('x-result-truncated', String(context.resultRowLimit));
      const data = inDomainSpelling(outcome.data ?? {}, compiled.spellings.get(operationName)!);
      if (endpoint.responseHeaders) {
        for (const [name, header] of Object.entries(endpoint.responseHeaders)) {
          const value = header.value(data);
          if (value !== null) res.set(name, String(value));
        }
      }
      if (endpoint.contentType)
        return void res
          .status(200)
          .type(endpoint.contentType)
          .send(String(endpoint.result(data, selection)));
      let result: unknown;
      try {
        result = endpoint.result(data, selection) ?? {};
      } catch (error) {
        if (error instanceof GatewayError) return failRefused(error);
        throw error;
      }
      if (typeof endpoint.bareResult === 'function' ? endpoint.bareResult(input) : endpoint.bareResult)
        return void res
          .status(200)
          .type('json')
          .send(withAnswerEnd(jsonBodyOf(result)));
      const json = JSON.stringify(result);
      if (endpoint.startsJob === true || (endpoint.startsJob === 'when-asked' && input.respondAsync)) {
        res.set('location', `/v2/jobs/${(result as { id: string }).id}`);
        if (input.respondAsync) res.set('preference-applied', 'respond-async');
        return sendSuccess(req, res, endpoint.apiId, msgid, json, 202);
      }
      if (!cacheKey || !start) return sendSuccess(req, res, endpoint.apiId, msgid, json);
      const kept = prepareResult(json);
      results.keep(cacheKey, kept, madeOf, start);
      sendKept(req, res, msgid, cacheKey, kept);
    };

    const paths = [endpoint.path, ...(endpoint.aliases ?? [])];
    // A POST read whose result may be kept (a list) is declared to the fast path, which keys a raw
    // request's JSON body the way this route does and serves the kept result, if any. Only paths
    // without parameters: the fast path matches the request line as it is.
    if (options.keptReads && results && endpoint.method === 'POST' && !endpoint.multipart && !endpoint.largeBody) {
      const keyOfBody = (body: unknown): string | undefined => {
        if (findJsonLimitViolation(body, options.jsonLimits)) return undefined;
        if (invalidInput({}, {}, body) !== undefined) return undefined;
        const input: RestInput = { path: {}, query: {}, body: (body ?? {}) as Record<string, unknown> };
        try {
          const { operationName, variableValues, selection } = operationFor(input);
          return keyFor(operationName, variableValues, selection);
        } catch {
          return undefined;
        }
      };
      const keyOfBodyAgain = keyOfRepeatedBodies(keyOfBody, endpoint.bodySchema, options.jsonLimits);
      for (const path of paths.filter((each) => !each.includes(':'))) options.keptReads.declarePost(path, { apiId: endpoint.apiId, route: endpoint.path, part: results, keyOfBody: keyOfBodyAgain });
    }
    // A GET read whose result may be kept is declared too: the fast path lets concurrent first reads
    // of one URL wait for one of them instead of each running the operation.
    if (options.keptReads && results && endpoint.method === 'GET') for (const path of paths) options.keptReads.declareGet(path);
    /** The body, then the operation: a multipart entry spools its one file, any other reads JSON. */
    const readBodyAndHandle = endpoint.multipart
      ? // Failures and the envelope are the same as for any entry; the temporary file goes once the operation has answered.
        (req: Request, res: Response, next: NextFunction) =>
          receiveSingleFile(req, uploadLimit).then(
            (received) => {
              req.body = {};
              handle(req, res, received.upload)
                .catch(next)
                .finally(() => void received.discard());
            },
            (error: unknown) => {
              if (error instanceof MultipartRefused) return failEntry(res, undefined, new GatewayError(endpoint.invalidInputCode, error.message));
              next(error);
            },
          )
      : jsonBodyThen(endpoint, endpoint.largeBody ? largeJson : json, failEntry, (req, res, next) => void handle(req, res).catch(next));

    routes.add(endpoint.method, paths, (req: Request, res: Response, next: NextFunction) => {
      // Names the call for the request log and the metrics (src/http/use-observability.ts).
      res.locals.apiId = endpoint.apiId;
      res.locals.route = endpoint.path;
      res.locals.datasetId = req.params.dataset_id;
      // Access (src/auth/access.ts): credentials, permission and rate limit, before a body is read or
      // a file spooled. The context made here runs the operation, whose root field then passes the
      // same check with the same API id (without paying the rate limit twice).
      const context = options.createContext(res.locals.requestId as string, res.locals.auth as Authentication | undefined, req.ip);
      const refused = (error: unknown) => (error instanceof GatewayError ? failEntry(res, undefined, error) : next(error));
      const admittedNow = () => {
        res.locals.context = context;
        readBodyAndHandle(req, res, next);
      };
      let admitted: void | Promise<void>;
      try {
        admitted = context.access.admit([endpoint.apiId], { prepay: true });
      } catch (error) {
        return refused(error);
      }
      if (admitted) admitted.then(admittedNow, refused);
      else admittedNow();
    });
  }

  router.use(routes.dispatch);
  return router;
}

/** A JSON body parser, the limit it holds (named when a body passes it), and the limits on what the body holds. */
interface JsonBodyReader {
  parse: Step;
  limit: NamedLimit;
  jsonLimits: JsonLimits;
}

/** Reads an entry's JSON body (refusing other media types, bad JSON and bodies past the limits) and then runs `then`. */
function jsonBodyThen(endpoint: RestEndpoint, reader: JsonBodyReader, failEntry: (res: Response, msgid: string | undefined, error: GatewayError) => void, then: Step): Step {
  return (req, res, next) => {
    // A body must say it is JSON: a form or text/plain POST (which a foreign page can send
    // without a preflight) is refused, not read as JSON.
    if (hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
      const given = req.headers['content-type'] ?? 'none';
      return failEntry(res, undefined, new GatewayError(endpoint.invalidInputCode, `The body must be JSON with Content-Type: application/json (got ${given.slice(0, 100)}).`));
    }
    reader.parse(req, res, (parseError?: unknown) => {
      if (parseError) {
        const failure = bodyParseFailure(parseError, endpoint.invalidInputCode, reader.limit);
        if (failure) return failEntry(res, undefined, failure);
        return next(parseError);
      }
      const violation = findJsonLimitViolation(req.body, reader.jsonLimits);
      if (violation) return failEntry(res, requestMsgid(req.body), new GatewayError(endpoint.invalidInputCode, describeJsonLimitViolation(violation)));
      then(req, res, next);
    });
  };
}

/**
 * The original's ROUTE_NOT_FOUND envelope, for any path nothing serves (src/server.ts mounts it
 * after every router, so `//v2//template/read/x`, which matches no route, gets it too).
 */
export function routeNotFound(req: Request, res: Response): void {
  sendFailure(res, 'api', undefined, new GatewayError('ROUTE_NOT_FOUND', `Route not found: ${req.method} ${req.originalUrl.split('?')[0]!.slice(0, 300)}`));
}

/** Last-resort handler: an error nobody expected becomes a generic failure envelope, logged with the request id. */
export function restErrorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A request express itself refused before any handler (e.g. a path segment that is not valid
    // percent-encoding: status 400): the caller's fault, answered as such, not as a 500.
    const refused = (error as { status?: unknown; expose?: unknown } | undefined)?.status;
    if (typeof refused === 'number' && refused >= 400 && refused < 500 && (error as { expose?: unknown }).expose !== false && !res.headersSent) {
      logger.warn({ err: error, requestId: res.locals.requestId, path: req.path }, 'request refused before routing');
      const apiId = typeof res.locals.apiId === 'string' ? res.locals.apiId : 'api';
      return sendFailure(res, apiId, undefined, new GatewayError('INVALID_INPUT', `The request could not be read: ${(error as Error).message}`, { httpStatus: refused }));
    }
    logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unhandled error');
    if (res.headersSent) return;
    sendFailure(res, 'api', undefined, new GatewayError('INTERNAL_SERVER_ERROR', GENERIC_FAILURE_MESSAGE));
  };
}
