// GraphQL resolvers for chart-ready series and typed frames: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';
import { toFrame } from './frames.js';

export const seriesResolvers: Resolvers = {
  Query: {
    metricSeries: (_, { query, start, end, step }, { services }) => services.series.metricSeries(query, start, end, step),
    runTemplateFrame: async (_, { id, input }, { services, loaders }) =>
      toFrame(
        await services.templates.run(
          id,
          { startdate: input.startDate, enddate: input.endDate, dataset: input.dataset, aggregationLevel: input.aggregationLevel, limit: input.limit },
          loaders.templateById,
        ),
      ),
    queryDatasetFrame: async (_, { dataset, query, aggregationLevel }, { services }) => toFrame(await services.dataAccess.query(dataset, query, aggregationLevel)),
    sqlQueryFrame: async (_, { query }, { services }) => toFrame(await services.dataAccess.sql(query)),
  },
  Dataset: {
    ingestionSeries: (dataset, { start, end, step }, { services }) => services.series.ingestionSeries(dataset.datasetId, start, end, step),
  },
};
