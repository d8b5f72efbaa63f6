// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Query templates and their runs.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
import type { FieldReads } from '../../graphql/field-reads.js';
import type { PublishedReads } from '../../graphql/published-reads.js';

export const templatesFieldPermissions: FieldPermissions = {
  'Query.template': ['api.query.template.read'],
  'Query.templates': ['api.query.template.list'],
  'Query.runTemplate': ['api.query.template.query'],
  'Mutation.createTemplate': ['api.query.template.create'],
  'Mutation.updateTemplate': ['api.query.template.update'],
  'Mutation.deleteTemplate': ['api.query.template.delete'],
};

/** Root fields whose answers are made of published records only (kept until one of these tables changes). */
export const templatesPublishedReads: PublishedReads = {
  tables: { 'Query.template': ['query_templates'], 'Query.templates': ['query_templates'] },
  linked: { 'QueryTemplate.datasets': ['datasets'], 'QueryTemplate.datasetPage': ['datasets'] },
};

/** The record fields each field of a listed template reads (src/graphql/field-reads.ts): the template list reads those columns only. */
export const templateFieldReads: FieldReads = {
  ...Object.fromEntries(['templateId', 'query', 'queryType', 'createdBy', 'updatedBy'].map((field) => [`QueryTemplate.${field}`, [field]])),
  'QueryTemplate.id': ['templateId'],
  'QueryTemplate.name': ['templateName'],
  'QueryTemplate.createdAt': ['createdDate'],
  'QueryTemplate.updatedAt': ['updatedDate'],
  // The datasets its query names by id.
  'QueryTemplate.datasets': ['query'],
  'QueryTemplate.datasetPage': ['query'],
  'QueryTemplate.history': ['templateId'],
  'QueryTemplate.lineage': ['templateId'],
};
