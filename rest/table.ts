// The shape of one REST compatibility entry. Routing, validation, the envelope and (later) access
// control and the OpenAPI document are all derived from these declarations.
import type { ErrorCode, GatewayError } from '../src/errors.js';
import type { ErrorPresentation } from '../src/http/envelope.js';
import { DOCUMENT_NAMES } from '../src/platform/dataset-document.js';
import type { JsonSchema } from './validation.js';
import type { Respelled } from './result-spelling.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RestInput {
  /** Path parameters, validated by `pathSchema`. */
  path: Record<string, string>;
  /** Query-string parameters, validated by `querySchema`. */
  query: Record<string, unknown>;
  /** The parsed body, validated by `bodySchema` (an empty object when there was none). */
  body: Record<string, unknown>;
  /** The uploaded file of a `multipart` entry, as an `Upload` variable value. */
  file?: unknown;
  /** The request asked for the work to run as a job (`Prefer: respond-async`, RFC 7240). */
  respondAsync?: boolean;
}

export interface RestEndpoint<TData = Record<string, unknown>, TVariables = Record<string, unknown>> {
  method: HttpMethod;
  /** Express path, e.g. `/v2/template/read/:template_id`. */
  path: string;
  /** Other paths served by this same entry (the original's second names for one handler). */
  aliases?: readonly string[];
  /** The envelope's `id`, e.g. `api.query.template.read`. */
  apiId: string;
  /** One line for the API reference. */
  summary: string;
  /** Error code of a request that fails the schemas below. */
  invalidInputCode: ErrorCode;
  /**
   * The other codes this entry can answer (besides invalidInputCode and the access and cross-cutting
   * ones every entry has), declared here once: the API reference lists them (rest/openapi.ts), and
   * the test run fails when an entry answers a code it does not declare (test/support/global-teardown.mjs).
   */
  errorCodes: readonly ErrorCode[];
  /**
   * Codes this entry shows otherwise than the catalogue does, because the contract shows them so on
   * this route (ingestion's lookups: HTTP 404 with responseCode BAD_REQUEST). Services raise the
   * domain's code as it is; the router answers it this way and the API reference documents it so.
   * Each code must be one the entry declares (checked at start-up).
   */
  errorPresentation?: Partial<Record<ErrorCode, ErrorPresentation>>;
  pathSchema?: JsonSchema;
  querySchema?: JsonSchema;
  /** Takes bodies up to the ingestion limit instead of the general one. */
  largeBody?: boolean;
  /**
   * Takes a multipart/form-data body with one file (any part name) instead of JSON, up to the upload
   * limit; the file reaches `variables` as `input.file` (an `Upload`), and there is no envelope.
   */
  multipart?: boolean;
  /** Schema of the whole body; absent for endpoints that take none. */
  bodySchema?: JsonSchema;
  /**
   * Rules the service applies to the body (with its own message, the same over GraphQL), written
   * into the API reference beside `bodySchema` so that clients see them; REST does not check them first.
   */
  documentedServiceRules?: { minProperties?: number };
  /**
   * The GraphQL operation this endpoint runs (parsed and validated once at start-up), or several
   * by name with `chooseOperation` picking one per request (e.g. a read that may create a draft).
   */
  operation: string | Record<string, string>;
  chooseOperation?: (input: RestInput) => string;
  /**
   * The API id a named operation needs instead of `apiId` (e.g. a read whose `mode=edit` makes a
   * draft needs the update permission); its root fields must admit it (checked at start-up).
   */
  operationApiIds?: Readonly<Record<string, string>>;
  /** Turns the validated request into the operation's variables. */
  variables: (input: RestInput) => TVariables;
  /**
   * Answers success with the result itself, no envelope (the original's SQL endpoint answers as Druid
   * does, for BI tools); failures keep the failure envelope. A function decides per request (the
   * dashboards' metrics answer Prometheus's JSON bare and Druid's rows in the envelope, as the original does).
   */
  bareResult?: boolean | ((input: RestInput) => boolean);
  /**
   * Answers success with the result, which must be a string, as the body with this media type (e.g.
   * `application/yaml` for a rule file), no envelope; failures keep the failure envelope.
   */
  contentType?: string;
  /** The JSON Schema of the envelope's `result`, for the API reference, where the entry projects it through a result shape (result-shape.ts). */
  resultSchema?: JsonSchema;
  /**
   * The keys of its result a request selects, where REST narrows the result itself (a read's
   * `fields=`, keys of the entry's result shape); null for the whole result. Handed to `result`, and
   * part of a kept answer's key.
   */
  selection?: (input: RestInput) => readonly string[] | null;
  /**
   * Turns the operation's `data`, its enum values in the domain's spelling (result-spelling.ts), into
   * the envelope's `result`; may refuse the selection with a GatewayError (a key the result lacks).
   */
  result: (data: Respelled<TData>, selection: readonly string[] | null) => unknown;
  /**
   * The request started a job (src/modules/jobs), whose record is the result: answered 202 Accepted
   * with `Location: /v2/jobs/<id>` instead of 200. `'when-asked'`: a route that answers at once
   * unless the request says `Prefer: respond-async` (then also `Preference-Applied: respond-async`);
   * the API reference documents that header as the route's parameter.
   */
  startsJob?: true | 'when-asked';
  /**
   * Headers a success carries beside the body, read from the operation's `data` (a header whose value
   * is null is left out): facts the contract's body has no room for, told without changing it. The
   * API reference documents each with its description and schema.
   */
  responseHeaders?: Readonly<Record<string, ResponseHeader<Respelled<TData>>>>;
}

export interface ResponseHeader<TData = Record<string, unknown>> {
  description: string;
  schema: JsonSchema;
  value: (data: TData) => string | number | null;
}

/**
 * How REST names the fields a message names (services name them in the domain's words): as the
 * contract does. A dataset's fields are the definition document's (src/platform/dataset-document.ts).
 */
const CONTRACT_FIELD_NAMES: Readonly<Record<string, string>> = DOCUMENT_NAMES;

/** How `error` is shown on `endpoint`: the entry's presentation of its code, else the catalogue's, in the contract's field names. */
export function presentationOf(endpoint: Pick<RestEndpoint, 'errorPresentation'>, error: Pick<GatewayError, 'code' | 'kind' | 'httpStatus' | 'messageNaming'>): ErrorPresentation {
  const { kind, httpStatus } = endpoint.errorPresentation?.[error.code] ?? error;
  return { kind, httpStatus, message: error.messageNaming(CONTRACT_FIELD_NAMES) };
}

/** The text of each GraphQL operation an entry may run. */
export function operationTexts(endpoint: Pick<RestEndpoint, 'operation'>): string[] {
  return typeof endpoint.operation === 'string' ? [endpoint.operation] : Object.values(endpoint.operation);
}

/** The query parameter `mode` of a read, which `isEditMode` reads (any other value reads the Live version). */
export const EDIT_MODE: Readonly<Record<string, JsonSchema>> = { mode: { type: 'string', description: 'edit: the draft instead of the Live version.' } };

/** A read's `mode=edit` (any case, as the original's connector read takes it), which reads or makes the draft. */
export function isEditMode(input: RestInput): boolean {
  return typeof input.query.mode === 'string' && input.query.mode.toLowerCase() === 'edit';
}

/** The envelope's `request`, in the shape the entry's body schema has already checked. */
export function requestOf<T>(input: RestInput): T {
  return (input.body.request ?? {}) as T;
}

/** A path parameter the entry's path declares (the router only calls an entry when it is there). */
export function pathParam(input: RestInput, name: string): string {
  const value = input.path[name];
  if (value === undefined) throw new Error(`path parameter ${name} is not declared by this entry's path`);
  return value;
}

/**
 * Gives an entry its types where it is written: `TData` and `TVariables` are its operation's
 * generated types (src/generated/rest-operations.ts), so `variables` must build what the
 * operation declares and `result` reads only what it selects. The table keeps entries untyped.
 */
export function defineEndpoint<TData, TVariables>(endpoint: RestEndpoint<TData, TVariables>): RestEndpoint {
  return endpoint as unknown as RestEndpoint;
}
