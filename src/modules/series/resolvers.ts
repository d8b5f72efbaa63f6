// GraphQL resolvers for chart-ready series and typed frames: arguments in, service call, result out.
import type { Resolvers } from '../../generated/graphql.js';
import { toFrame } from './frames.js';

export const seriesResolvers: Resolvers = {
  Query: {
    metricSeries: (_, { query, start, end, range, last, step }, { services }) => services.series.metricSeriesOver(query, { start, end, range, last }, step),
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
    // Batched across the page: every dataset asking for the same grid is one range query.
    ingestionSeries: (dataset, { start, end, range, last, step }, { services, loaders }) =>
      loaders.ingestionSeries.load({ datasetId: dataset.datasetId, grid: services.series.gridOf({ start, end, range, last }, step) }),
  },
};
