// Request validation at the edge: the envelope schema around each operation's request schema.
import type { JsonSchema } from '../src/validation/json-schema.js';

export { compileValidator, type JsonSchema, type Validator } from '../src/validation/json-schema.js';

/** The envelope's own fields (seed section 1): the API id, version, time stamp and params with the caller's msgid. */
function envelopeFields(apiId: string, options: { otherIds?: readonly string[]; msgid?: JsonSchema } = {}): Record<string, JsonSchema> {
  return {
    // Some clients send another spelling of an id (the original's console: api.datasets.health).
    id: options.otherIds?.length ? { enum: [apiId, ...options.otherIds] } : { const: apiId },
    ver: { type: 'string', maxLength: 16 },
    // ISO 8601 and epoch-millisecond text both occur in the wild; only the type is checked.
    ts: { type: 'string', maxLength: 64 },
    params: {
      type: 'object',
      properties: { msgid: options.msgid ?? { type: 'string', maxLength: 256 } },
      ...(options.msgid ? { required: ['msgid'] } : {}),
      additionalProperties: false,
    },
  };
}

/** The common request envelope (seed section 1) around an operation's `request` schema. */
export function envelopeSchema(apiId: string, request: JsonSchema | undefined, options: { requestRequired: boolean; otherIds?: readonly string[] }): JsonSchema {
  return {
    type: 'object',
    properties: {
      ...envelopeFields(apiId, options),
      ...(request ? { request } : {}),
    },
    required: options.requestRequired ? ['request'] : [],
    additionalProperties: false,
  };
}

/**
 * The envelope's own fields beside a request's fields, for the original's calls that carry no
 * `request` (data-out's `query`, ingestion's `data`). `whole`: the envelope is required, params.msgid
 * too, as `msgid` then says.
 */
export function besideEnvelope(apiId: string, request: JsonSchema, whole?: { msgid: JsonSchema }): JsonSchema {
  const fields = envelopeFields(apiId, whole ?? {});
  const required = whole ? [...Object.keys(fields), ...((request.required as string[] | undefined) ?? [])] : request.required;
  return { ...request, properties: { ...fields, ...(request.properties as Record<string, JsonSchema>) }, ...(required ? { required } : {}) };
}
