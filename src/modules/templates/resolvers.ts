// GraphQL resolvers for query templates: arguments in, service call, result out.
import { nodeFieldReads } from '../../graphql/field-reads.js';
import { globalId } from '../../graphql/global-id.js';
import { noteRowLimit } from '../../graphql/row-limit.js';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import { legacyEq, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import type { Resolvers } from '../../generated/graphql.js';
import { namesInQuery } from './service.js';
import type { TemplateRecord, TemplateSortField } from './types.js';

/** The older `sort` argument's fields as the list contract names them. */
const LEGACY_SORT_FIELDS: Record<TemplateSortField, string> = { createdDate: 'createdAt', updatedDate: 'updatedAt', templateName: 'name', templateId: 'templateId' };

export const templateResolvers: Resolvers = {
  Query: {
    runTemplate: async (_, { id, input }, context) =>
      noteRowLimit(
        context,
        await context.services.templates.run(
          id,
          { startdate: input.startDate, enddate: input.endDate, dataset: input.dataset, aggregationLevel: input.aggregationLevel, limit: input.limit },
          context.loaders.templateById,
        ),
      ),
    template: (_, { id }, { services, loaders }) => services.templates.get(id, loaders.templateById),
    templates: (_, { filter, sort, where, orderBy, first, after, last, before }, { services }, info) =>
      services.templates.list(
        {
          where: withLegacyFilter(where, legacyEq('queryType', filter?.queryType)),
          orderBy: orderBy ?? sort?.map((key) => ({ field: LEGACY_SORT_FIELDS[key.field], direction: key.order })),
          first,
          after,
          last,
          before,
        },
        nodeFieldReads(info),
      ),
  },
  Mutation: {
    createTemplate: async (_, { input }, { services, actor }) => ({
      template: await services.templates.create({ templateName: input.name, queryType: input.queryType, query: input.query }, actor),
      message: 'The query template has been saved successfully',
    }),
    updateTemplate: async (_, { id, input }, { services, actor }) => ({
      template: await services.templates.update(id, { templateName: input.name, queryType: input.queryType, query: input.query }, actor),
      message: 'Query template updated successfully',
    }),
    deleteTemplate: async (_, { id }, { services }) => {
      await services.templates.delete(id);
      return { id, message: `Template ${id} deleted successfully` };
    },
  },
  QueryTemplate: {
    id: (template) => globalId('QueryTemplate', template.templateId),
    name: (template) => template.templateName,
    createdAt: (template) => template.createdDate,
    updatedAt: (template) => template.updatedDate,
    datasets: async (template, _, context) => {
      const found = await context.loaders.datasetVersions.loadMany(namesInQuery(template.query));
      return found.flatMap((versions) => (versions instanceof Error ? [] : (versions.live ?? versions.draft ?? [])));
    },
    datasetPage: (template, { where, orderBy, first, after, last, before }, { loaders, services }) =>
      services.datasets.namedDatasetPage(loaders, namesInQuery(template.query), { where, orderBy, first, after, last, before }),
  },
  QueryTemplateConnection: listConnectionResolvers<TemplateRecord>(),
  Dataset: {
    templates: (dataset, _, context) => {
      return context.loaders.templatesByDataset.load(dataset.datasetId);
    },
    templatePage: (dataset, { where, orderBy, first, after, last, before }, context) => {
      return context.services.templates.datasetTemplatePage(context.loaders, dataset.datasetId, { where, orderBy, first, after, last, before });
    },
  },
};
