// A request's context makes its loaders on demand: a request answered without resolvers (a kept
// answer served before Apollo, a refusal) makes none, and a resolver asking twice gets the same one,
// so a request's lookups are still batched and cached together.
import { describe, expect, it } from '@jest/globals';
import { createContextFactory, type Services } from '../../src/context.js';
import { createLogger } from '../../src/logger.js';

function countingServices() {
  const made: string[] = [];
  const loaderOf = (name: string) => () => {
    made.push(name);
    return { name } as never;
  };
  const services = {
    templates: { createLoader: loaderOf('templateById'), createDatasetLoader: loaderOf('templatesByDataset') },
    datasets: { createLoader: loaderOf('datasetVersions') },
    connectors: { createLoader: loaderOf('connectorByName') },
    alerts: { createChannelLoader: loaderOf('channelById'), createSilenceLoader: loaderOf('silenceOfAlert') },
    alertRules: {
      createLoader: loaderOf('alertRuleById'),
      createDatasetLoader: loaderOf('alertRulesByDataset'),
      createEvaluationLoader: loaderOf('ruleEvaluation'),
      createNotificationsLoader: loaderOf('ruleNotifications'),
    },
    health: { createLoader: loaderOf('datasetHealth') },
    ingestion: { createCountsLoader: loaderOf('ingestionCounts') },
  } as unknown as Services;
  return { services, made };
}

describe('a request context', () => {
  it('makes no loader until a resolver asks for one, then one per kind for the whole request', () => {
    const { services, made } = countingServices();
    const context = createContextFactory(services, createLogger('silent'))('req-1');
    expect(made).toEqual([]);
    const first = context.loaders.datasetVersions;
    expect(context.loaders.datasetVersions).toBe(first);
    expect(made).toEqual(['datasetVersions']);
    void context.loaders.templatesByDataset;
    expect(made).toEqual(['datasetVersions', 'templatesByDataset']);
  });

  it('gives each request loaders of its own', () => {
    const { services } = countingServices();
    const createContext = createContextFactory(services, createLogger('silent'));
    expect(createContext('a').loaders.templateById).not.toBe(createContext('b').loaders.templateById);
  });
});
