// Health checks the console runs for each Live dataset on its list page: real probes, now, of what
// the dataset depends on. infra: the database, the event bus (the embedded event store is the
// database; Kafka: its producer), the query engine (embedded: the database; Druid: its health
// endpoint). processing: the pipeline taking events and the share of events it refused (the
// observability threshold). query: whether the dataset has a datasource to query.
import DataLoader from 'dataloader';
import { GatewayError } from '../../errors.js';
import type { EventBus } from '../../platform/event-bus/event-bus.js';
import type { QueryEngine } from '../../platform/query-engine/query-engine.js';
import { datasetIdLengthProblem } from '../datasets/index.js';
import type { DatasetService } from '../datasets/index.js';
import type { MetricsService } from './service.js';

export const HEALTH_CATEGORIES = ['infra', 'processing', 'query'] as const;
export type HealthCategory = (typeof HEALTH_CATEGORIES)[number];
export type Health = 'Healthy' | 'Unhealthy';

/** The dataset id that asks about the platform itself (infra only). */
export const PLATFORM_HEALTH_ID = '*';

export interface HealthComponent {
  type: string;
  status: Health;
  message?: string;
}

export interface HealthCategoryReport {
  category: HealthCategory;
  status: Health;
  components: HealthComponent[];
}

export interface DatasetHealth {
  status: Health;
  details: HealthCategoryReport[];
}

export interface HealthDependencies {
  /** Rejects when the database does not answer. */
  pingDatabase(): Promise<void>;
  eventBus: EventBus;
  queryEngine: QueryEngine;
  datasets: DatasetService;
  metrics: MetricsService;
}

const worst = (statuses: Health[]): Health => (statuses.includes('Unhealthy') ? 'Unhealthy' : 'Healthy');

async function probe(type: string, check: () => Promise<string | undefined>): Promise<HealthComponent> {
  try {
    const problem = await check();
    return problem ? { type, status: 'Unhealthy', message: problem } : { type, status: 'Healthy' };
  } catch (error) {
    return { type, status: 'Unhealthy', message: (error as Error).message };
  }
}

export function createHealthService(deps: HealthDependencies) {
  const database = () => probe('database', async () => (await deps.pingDatabase(), undefined));
  const eventBus = () =>
    probe('event_bus', async () => {
      const stats = deps.eventBus.stats?.();
      if (!stats) return deps.pingDatabase().then(() => undefined); // the embedded event store is the database
      return stats.connected || stats.failedBatches === 0 ? undefined : `the producer is not connected (${stats.failedBatches} batches failed)`;
    });
  const queryEngine = () => probe('query_engine', async () => (await (deps.queryEngine.ping?.() ?? deps.pingDatabase()), undefined));

  const infra = async (): Promise<HealthComponent[]> => Promise.all([database(), eventBus(), queryEngine()]);
  const processing = async (datasetId: string): Promise<HealthComponent[]> =>
    Promise.all([
      eventBus().then((component) => ({ ...component, type: 'pipeline' })),
      probe('failure_rate', async () => {
        const [observability] = await deps.metrics.forDataset(datasetId, { categories: ['data_observability'] });
        const rate = observability?.components.find((component) => component.type === 'failure_percentage')?.value;
        return observability?.status === 'Unhealthy' ? `${String(rate)} % of the events were refused, above the threshold` : undefined;
      }),
    ]);
  const query = async (datasetId: string): Promise<HealthComponent[]> => [
    await probe('datasource', async () => ((await deps.queryEngine.datasource(datasetId)) ? undefined : `the dataset has no datasource in ${deps.queryEngine.name}`)),
  ];

  const failed = (type: string, error: unknown): HealthComponent => ({ type, status: 'Unhealthy', message: (error as Error).message });

  return {
    /**
     * The processing and query categories of several Live datasets at once (what a list page shows),
     * as `check` reports them: each probe runs once for the whole batch, not once per dataset.
     */
    createLoader(): DataLoader<string, DatasetHealth> {
      return new DataLoader(async (datasetIds) => {
        const withDatasource = deps.queryEngine.datasetsWithDatasource
          ? deps.queryEngine.datasetsWithDatasource(datasetIds)
          : Promise.all(datasetIds.map(async (datasetId) => ((await deps.queryEngine.datasource(datasetId)) ? [datasetId] : []))).then((found) => new Set(found.flat()));
        const [pipeline, observability, queryable] = await Promise.all([
          eventBus().then((component) => ({ ...component, type: 'pipeline' })),
          deps.metrics.observabilityOf(datasetIds).catch((error: unknown) => error as Error),
          withDatasource.catch((error: unknown) => error as Error),
        ]);
        return datasetIds.map((datasetId): DatasetHealth => {
          const result = observability instanceof Error ? undefined : observability.get(datasetId);
          const rate = result?.components.find((component) => component.type === 'failure_percentage')?.value;
          const failureRate: HealthComponent =
            observability instanceof Error
              ? failed('failure_rate', observability)
              : result?.status === 'Unhealthy'
                ? { type: 'failure_rate', status: 'Unhealthy', message: `${String(rate)} % of the events were refused, above the threshold` }
                : { type: 'failure_rate', status: 'Healthy' };
          const datasource: HealthComponent =
            queryable instanceof Error
              ? failed('datasource', queryable)
              : queryable.has(datasetId)
                ? { type: 'datasource', status: 'Healthy' }
                : { type: 'datasource', status: 'Unhealthy', message: `the dataset has no datasource in ${deps.queryEngine.name}` };
          const details: HealthCategoryReport[] = [
            { category: 'processing', status: worst([pipeline.status, failureRate.status]), components: [pipeline, failureRate] },
            { category: 'query', status: datasource.status, components: [datasource] },
          ];
          return { status: worst(details.map((detail) => detail.status)), details };
        });
      });
    },

    async check(datasetId: string, categories: readonly HealthCategory[]): Promise<DatasetHealth> {
      const invalid = (message: string) => new GatewayError('DATASET_HEALTH_INVALID_INPUT', message);
      const idProblem = datasetIdLengthProblem(datasetId);
      if (idProblem) throw invalid(`dataset_id ${idProblem}`);
      if (categories.length === 0) throw invalid('categories must name at least one of infra, processing, query');
      const unknown = categories.find((category) => !HEALTH_CATEGORIES.includes(category));
      if (unknown) throw invalid(`unknown category ${JSON.stringify(unknown)} (known: ${HEALTH_CATEGORIES.join(', ')})`);
      const wanted = [...new Set(categories)];
      if (datasetId === PLATFORM_HEALTH_ID) {
        if (wanted.some((category) => category !== 'infra')) throw invalid(`dataset_id "${PLATFORM_HEALTH_ID}" checks the infra category only`);
      } else {
        const dataset = await deps.datasets.get(datasetId, { status: 'Live' });
        datasetId = dataset.datasetId;
      }
      const details = await Promise.all(
        wanted.map(async (category): Promise<HealthCategoryReport> => {
          const components = category === 'infra' ? await infra() : category === 'processing' ? await processing(datasetId) : await query(datasetId);
          return { category, status: worst(components.map((component) => component.status)), components };
        }),
      );
      return { status: worst(details.map((detail) => detail.status)), details };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
