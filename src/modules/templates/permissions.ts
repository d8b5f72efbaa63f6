// Who may call this module's root fields, by API id (config/permissions.json grants API ids to roles).
// Query templates and their runs.
import type { FieldPermissions } from '../../auth/field-api-ids.js';
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
