// The rules a connector distribution's metadata must keep (reference §4.3), as plain data and
// functions: the metadata.json schema, the ui spec check, and the registry entries a valid
// distribution declares (one per connector, id `<connector_id>-<version>`).
import { compileValidator, type JsonSchema } from '../../validation/json-schema.js';
import { CONNECTOR_CATEGORIES, type ConnectorCategory, type ConnectorValues, type JsonObject } from './types.js';
import { isObject } from '../../validation/json-object.js';

export const CONNECTOR_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,149}$';
export const CONNECTOR_VERSION_PATTERN = '^[A-Za-z0-9][A-Za-z0-9.+_-]{0,47}$';
/** Connectors one multi-tenant distribution may declare. */
export const MAX_CONNECTORS_PER_DISTRIBUTION = 50;

const optionalText = (maxLength: number) => ({ type: ['string', 'null'], maxLength });
const requiredText = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });

/** metadata.json as the original's command service reads it (`tenant: "multiple"` adds a `connectors` list). */
export const METADATA_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: CONNECTOR_ID_PATTERN },
        version: { type: 'string', pattern: CONNECTOR_VERSION_PATTERN },
        name: requiredText(200),
        type: requiredText(32),
        category: { type: 'string', enum: [...CONNECTOR_CATEGORIES] },
        description: optionalText(10_000),
        technology: requiredText(64),
        runtime: requiredText(64),
        licence: optionalText(120),
        owner: optionalText(200),
        icon: optionalText(2048),
        main_class: optionalText(500),
        main_program: optionalText(500),
        tenant: { type: 'string', enum: ['single', 'multiple'] },
      },
      required: ['id', 'version', 'name', 'category', 'technology', 'runtime'],
    },
    connectors: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_CONNECTORS_PER_DISTRIBUTION,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', pattern: CONNECTOR_ID_PATTERN },
          name: requiredText(200),
          description: optionalText(10_000),
          icon: optionalText(2048),
        },
        required: ['id', 'name'],
      },
    },
  },
  required: ['metadata'],
  if: { properties: { metadata: { type: 'object', properties: { tenant: { const: 'multiple' } }, required: ['tenant'] } }, required: ['metadata'] },
  then: { properties: { connectors: true }, required: ['connectors'] },
};

const validateMetadataDocument = compileValidator(METADATA_SCHEMA);

export interface DistributionMetadata {
  metadata: {
    id: string;
    version: string;
    name: string;
    type?: string;
    category: ConnectorCategory;
    description?: string | null;
    technology: string;
    runtime: string;
    licence?: string | null;
    owner?: string | null;
    icon?: string | null;
    main_class?: string | null;
    main_program?: string | null;
    tenant?: 'single' | 'multiple';
  };
  connectors?: { id: string; name: string; description?: string | null; icon?: string | null }[];
}

/** Why a parsed metadata.json is refused, naming the failing path; undefined when it is fine. */
export function metadataProblem(document: unknown): string | undefined {
  return validateMetadataDocument(document);
}

/** The folder the original requires inside a distribution. */
export function sourceFolderName(metadata: DistributionMetadata): string {
  return `${metadata.metadata.id}-${metadata.metadata.version}`;
}

/** The connectors a distribution declares: itself, or each of its `connectors` when multi-tenant. */
export function declaredConnectors(document: DistributionMetadata): { id: string; name: string; description: string | null; icon: string | null }[] {
  const { metadata } = document;
  if (metadata.tenant === 'multiple' && document.connectors) {
    return document.connectors.map((connector) => ({
      id: connector.id,
      name: connector.name,
      description: connector.description ?? metadata.description ?? null,
      icon: connector.icon ?? metadata.icon ?? null,
    }));
  }
  return [{ id: metadata.id, name: metadata.name, description: metadata.description ?? null, icon: metadata.icon ?? null }];
}

/**
 * The ui spec of one connector from ui-config.json: the entry under the connector's id when the
 * document is keyed by id (multi-tenant distributions), else the whole document. Either layout is
 * kept as the archive carries it: the contract's (an object with a `schema` object, contract 2.4)
 * or the console's form (a JSON Schema form with a `title` and fields in `properties`), which is
 * what the original's connector distributions ship and its registry stores as it is.
 */
export function uiSpecFor(uiConfig: unknown, connectorId: string): { spec?: JsonObject; problem?: string } {
  if (!isObject(uiConfig)) return { problem: 'ui-config.json must hold a JSON object' };
  const keyed = uiConfig[connectorId];
  const spec = isObject(keyed) ? keyed : uiConfig;
  const consoleForm = typeof spec.title === 'string' && isObject(spec.properties) && Object.keys(spec.properties).length > 0;
  if (!isObject(spec.schema) && !consoleForm) {
    return {
      problem: `ui-config.json: the ui spec of ${connectorId} must be an object with a "schema" object (a JSON Schema form description), or a JSON Schema form with a "title" and its fields in "properties"`,
    };
  }
  return { spec };
}

/** The registry entry (before audit fields) of one declared connector. */
export function registryValues(
  document: DistributionMetadata,
  connector: { id: string; name: string; description: string | null },
  extras: { iconUrl: string | null; uiSpec: JsonObject; sourceUrl: string | null; updatedBy: string },
): Omit<ConnectorValues, 'status'> {
  const { metadata } = document;
  return {
    id: `${connector.id}-${metadata.version}`,
    connectorId: connector.id,
    name: connector.name,
    type: metadata.type ?? 'source',
    category: metadata.category,
    version: metadata.version,
    description: connector.description,
    technology: metadata.technology,
    runtime: metadata.runtime,
    licence: metadata.licence ?? null,
    owner: metadata.owner ?? null,
    iconUrl: extras.iconUrl,
    uiSpec: extras.uiSpec,
    sourceUrl: extras.sourceUrl,
    source: { source: sourceFolderName(document), main_class: metadata.main_class ?? null, main_program: metadata.main_program ?? null },
    updatedBy: extras.updatedBy,
  };
}
