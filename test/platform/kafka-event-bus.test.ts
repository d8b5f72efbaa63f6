// The Kafka event bus (issue 5, reference §2.1): what it sends for an ingest call (topic, key,
// headers, value in the original's shape, acks=all, compression), one produce call for concurrent
// requests, and a quick 503-class failure (never a hang, never a silent drop) when Kafka does not
// answer. No broker can run on these machines, so the adapter is driven through the ingestion
// service with a fake producer; the gateway is then checked end to end against a closed port, and
// against a real broker only when KAFKA_BROKERS is set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { CompressionTypes, Kafka, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, logLevel, type ProducerBatch, type RecordMetadata } from 'kafkajs';
import { GatewayError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import type { DatasetService, DatasetRecord, JsonObject } from '../../src/modules/datasets/index.js';
import { IngestionCounters, createIngestionCounterStore, createIngestionService, type IngestionService } from '../../src/modules/ingestion/index.js';
import { findFreePort } from '../../src/platform/database/embedded.js';
import { KafkaEventBus, type KafkaProducer } from '../../src/platform/event-bus/kafka.js';
import { envelope, errorCode, graphql } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { createTestDatabase, startTestGateway, type TestGateway } from '../support/gateway.js';
import { liveDatasetRecord } from '../support/ingestion.js';
import { describeWhen } from '../support/skip.js';

// ---------------------------------------------------------------------------------------------
// A fake producer and datasets (local to this file)

/** Records what the bus asks of kafkajs; `answer` decides how each sendBatch ends. */
class FakeProducer implements KafkaProducer {
  readonly batches: ProducerBatch[] = [];
  connects = 0;
  disconnects = 0;
  answer: (batch: ProducerBatch) => Promise<RecordMetadata[]> = async () => [];

  async connect(): Promise<void> {
    this.connects += 1;
  }

  async disconnect(): Promise<void> {
    this.disconnects += 1;
  }

  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    this.batches.push(batch);
    return this.answer(batch);
  }
}

const DATASETS = new Map<string, DatasetRecord>(
  [
    liveDatasetRecord('orders'),
    liveDatasetRecord('clicks', { entryTopic: 'clicks.topic' }),
    liveDatasetRecord('defaults', { extractionConfig: { is_batch_event: false, extraction_key: '', dedup_config: { drop_duplicates: false, dedup_key: '' } } }),
    liveDatasetRecord('legacy', { apiVersion: 'v1', entryTopic: null, datasetConfig: { data_key: '', timestamp_key: 'ts', entry_topic: 'local.ingest' } }),
  ].map((dataset) => [dataset.datasetId, dataset]),
);

const datasetService = {
  async get(datasetId: string): Promise<DatasetRecord> {
    const found = DATASETS.get(datasetId);
    if (!found) throw new GatewayError('DATASET_NOT_FOUND', `Dataset not found: ${datasetId}`);
    return found;
  },
} as unknown as DatasetService;

// The ingestion counters live in PostgreSQL, as the gateway keeps them: a database of this file's own.
let countersDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
let countersPool: pg.Pool;
beforeAll(async () => {
  countersDatabase = await createTestDatabase();
  countersPool = new pg.Pool({ connectionString: countersDatabase.url, max: 2 });
});
afterAll(async () => {
  await countersPool?.end();
  await countersDatabase?.drop();
});

function kafkaIngestion(timeoutMs = 2_000): { producer: FakeProducer; service: IngestionService; bus: KafkaEventBus } {
  const producer = new FakeProducer();
  const logger = createLogger('silent');
  const bus = new KafkaEventBus(producer, { brokers: ['fake:9092'], clientId: 'test', timeoutMs }, logger);
  return { producer, bus, service: createIngestionService(datasetService, bus, new IngestionCounters(createIngestionCounterStore(countersPool), logger), { maxBatch: 1000 }) };
}

/** The one message of the one topic of the one sendBatch. */
function onlyMessage(producer: FakeProducer) {
  expect(producer.batches).toHaveLength(1);
  const batch = producer.batches[0]!;
  expect(batch.topicMessages).toHaveLength(1);
  const topic = batch.topicMessages![0]!;
  expect(topic.messages).toHaveLength(1);
  const message = topic.messages[0]!;
  return { topic: topic.topic, key: message.key, headers: message.headers, value: JSON.parse(String(message.value)) as JsonObject };
}

const OBSRV_META = {
  syncts: expect.any(Number),
  flags: {},
  timespans: {},
  error: {},
  source: { connector: 'api', connectorInstance: 'api' },
};

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const started = Date.now();
  try {
    return { value: await promise, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
}

// ---------------------------------------------------------------------------------------------

describe('the Kafka event bus, on what it sends', () => {
  it('sends one event as {event, obsrv_meta, dataset, msgid} to the entry topic, keyed by msgid, with acks=all and gzip', async () => {
    const { producer, service } = kafkaIngestion();
    const before = Date.now();
    const result = await service.ingest('orders', { id: 'e1', amount: 3 }, 'msg-single');
    // Acknowledged, not processed: the gateway does not pretend to know what processing will make of it.
    expect(result).toEqual({ outcome: 'queued', accepted: 1, processed: null, duplicates: null, failed: null, refused: null });

    const sent = onlyMessage(producer);
    expect(sent).toEqual({
      topic: 'orders.ingest',
      key: 'msg-single',
      headers: { dataset_id: 'orders', msgid: 'msg-single', 'content-type': 'application/json' },
      value: { event: { id: 'e1', amount: 3 }, obsrv_meta: OBSRV_META, dataset: 'orders', msgid: 'msg-single' },
    });
    const syncts = (sent.value.obsrv_meta as { syncts: number }).syncts;
    expect(syncts).toBeGreaterThanOrEqual(before);
    expect(syncts).toBeLessThanOrEqual(Date.now());
    expect(producer.batches[0]).toMatchObject({ acks: -1, compression: CompressionTypes.GZIP });
    expect(producer.connects).toBe(1);
  });

  it('sends a batch as ONE message: the events under the extraction key and the msgid under the dedup key', async () => {
    const { producer, service } = kafkaIngestion();
    const events = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    expect((await service.ingest('orders', events, 'msg-batch')).accepted).toBe(3);
    const sent = onlyMessage(producer);
    expect(sent.topic).toBe('orders.ingest');
    expect(sent.key).toBe('msg-batch');
    expect(sent.value).toEqual({ records: events, batch_msgid: 'msg-batch', obsrv_meta: OBSRV_META, dataset: 'orders', msgid: 'msg-batch' });
  });

  it('uses the original defaults, "events" and "id", when the dataset names no extraction or dedup key', async () => {
    const { producer, service } = kafkaIngestion();
    await service.ingest('defaults', [{ n: 1 }, { n: 2 }], 'msg-defaults');
    expect(onlyMessage(producer).value).toEqual({ events: [{ n: 1 }, { n: 2 }], id: 'msg-defaults', obsrv_meta: OBSRV_META, dataset: 'defaults', msgid: 'msg-defaults' });
  });

  it('sends to the entry topic of the flat config for a v1 dataset', async () => {
    const { producer, service } = kafkaIngestion();
    await service.ingest('legacy', { id: 'x' }, 'msg-legacy');
    expect(onlyMessage(producer).topic).toBe('local.ingest');
  });

  it('answers only once the broker has acknowledged', async () => {
    const { producer, service } = kafkaIngestion();
    let acknowledge!: () => void;
    producer.answer = () => new Promise((resolve) => (acknowledge = () => resolve([])));
    let done = false;
    const ingesting = service.ingest('orders', { id: 'wait' }, 'msg-wait').then((result) => {
      done = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(producer.batches).toHaveLength(1);
    expect(done).toBe(false);
    acknowledge();
    expect((await ingesting).accepted).toBe(1);
  });

  it('sends publishes of the same tick in ONE sendBatch, grouped by topic, each answered with its own count', async () => {
    const { producer, service } = kafkaIngestion();
    const results = await Promise.all([
      service.ingest('orders', { id: '1' }, 'm1'),
      service.ingest('clicks', [{ id: '2' }, { id: '3' }], 'm2'),
      service.ingest('orders', [{ id: '4' }, { id: '5' }, { id: '6' }], 'm3'),
    ]);
    expect(results.map((result) => result.accepted)).toEqual([1, 2, 3]);
    expect(producer.batches).toHaveLength(1);
    const byTopic = Object.fromEntries(producer.batches[0]!.topicMessages!.map((topic) => [topic.topic, topic.messages.map((message) => message.key)]));
    expect(byTopic).toEqual({ 'orders.ingest': ['m1', 'm3'], 'clicks.topic': ['m2'] });
    expect(producer.connects).toBe(1);
  });

  it('fails every pending publish with EVENT_BUS_UNAVAILABLE (503 class) when the producer rejects, then recovers', async () => {
    const { producer, service } = kafkaIngestion();
    producer.answer = () => Promise.reject(new Error('KafkaJSNumberOfRetriesExceeded: connection refused'));
    const outcomes = await Promise.all([
      settle(service.ingest('orders', { id: '1' }, 'f1')),
      settle(service.ingest('clicks', { id: '2' }, 'f2')),
      settle(service.ingest('orders', [{ id: '3' }], 'f3')),
    ]);
    expect(producer.batches).toHaveLength(1);
    for (const outcome of outcomes) {
      expect(outcome.value).toBeUndefined();
      expect(outcome.error).toBeInstanceOf(GatewayError);
      expect(outcome.error).toMatchObject({ code: 'EVENT_BUS_UNAVAILABLE', kind: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
      expect((outcome.error as Error).message).toMatch(/retry/i);
    }

    producer.answer = async () => [];
    expect((await service.ingest('orders', { id: '4' }, 'after')).accepted).toBe(1);
    expect(producer.connects).toBe(2);
  });

  it("acknowledges the other datasets' events of a send when one dataset's topic is missing, and refuses only that dataset's requests, naming the topic", async () => {
    const { producer, service } = kafkaIngestion();
    // As kafkajs fails when a topic of the send does not exist (its metadata step, before it produces
    // anything): the last retry's protocol error, wrapped.
    const unknownTopic = new KafkaJSNumberOfRetriesExceeded(
      new KafkaJSProtocolError({ type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3, retriable: true, message: 'This server does not host this topic-partition' } as unknown as Error),
      { retryCount: 2, retryTime: 1_000 },
    );
    const written: string[] = [];
    producer.answer = async (batch) => {
      if (batch.topicMessages!.some((topic) => topic.topic === 'clicks.topic')) throw unknownTopic;
      for (const topic of batch.topicMessages!) for (const message of topic.messages) written.push(`${topic.topic}/${String(message.key)}`);
      return [];
    };
    const [first, missing, third] = await Promise.all([
      settle(service.ingest('orders', { id: '1' }, 'm1')),
      settle(service.ingest('clicks', [{ id: '2' }, { id: '3' }], 'm2')),
      settle(service.ingest('orders', [{ id: '4' }, { id: '5' }], 'm3')),
    ]);
    expect([first.value?.accepted, third.value?.accepted]).toEqual([1, 2]);
    expect(missing.value).toBeUndefined();
    expect(missing.error).toMatchObject({ code: 'EVENT_BUS_UNAVAILABLE', httpStatus: 503 });
    expect((missing.error as Error).message).toMatch(/topic clicks\.topic \(UNKNOWN_TOPIC_OR_PARTITION\).*Nothing was written/);
    // Each acknowledged message written once; nothing of the refused dataset.
    expect(written.sort()).toEqual(['orders.ingest/m1', 'orders.ingest/m3']);
    // One send of everything first, then each topic on its own; the connection was not dropped.
    expect(producer.batches.map((batch) => batch.topicMessages!.map((topic) => topic.topic).sort())).toEqual([['clicks.topic', 'orders.ingest'], ['orders.ingest'], ['clicks.topic']]);
    expect(producer.connects).toBe(1);
  });

  it('refuses every request of a send alike when Kafka fails for another reason than a topic (none is told it was written)', async () => {
    const { producer, service } = kafkaIngestion();
    producer.answer = () => Promise.reject(new KafkaJSNumberOfRetriesExceeded(new Error('Connection error: connect ECONNREFUSED'), { retryCount: 2, retryTime: 1_000 }));
    const outcomes = await Promise.all([settle(service.ingest('orders', { id: '1' }, 'r1')), settle(service.ingest('clicks', { id: '2' }, 'r2'))]);
    expect(outcomes.map((outcome) => (outcome.error as { code?: string } | undefined)?.code)).toEqual(['EVENT_BUS_UNAVAILABLE', 'EVENT_BUS_UNAVAILABLE']);
    expect(producer.batches).toHaveLength(1);
  });

  it('fails a publish with EVENT_BUS_UNAVAILABLE within the configured timeout when the producer never answers', async () => {
    const { producer, service } = kafkaIngestion(300);
    producer.answer = () => new Promise(() => undefined);
    const outcomes = await Promise.all([settle(service.ingest('orders', { id: '1' }, 'h1')), settle(service.ingest('orders', { id: '2' }, 'h2'))]);
    for (const outcome of outcomes) {
      expect(outcome.error).toMatchObject({ code: 'EVENT_BUS_UNAVAILABLE', httpStatus: 503 });
      expect(outcome.ms).toBeGreaterThanOrEqual(250);
      expect(outcome.ms).toBeLessThan(1_500);
    }
  });

  it('fails within the configured timeout when connecting never finishes', async () => {
    const { producer, service } = kafkaIngestion(300);
    producer.connect = () => new Promise(() => undefined);
    const outcome = await settle(service.ingest('orders', { id: '1' }, 'c1'));
    expect(outcome.error).toMatchObject({ code: 'EVENT_BUS_UNAVAILABLE', httpStatus: 503 });
    expect(outcome.ms).toBeLessThan(1_500);
    expect(producer.batches).toHaveLength(0);
  });
});

describe('the gateway with KAFKA_BROKERS pointing at a closed port', () => {
  let gw: TestGateway;
  const DATASET = 'kafka_down_events';
  beforeAll(async () => {
    const closed = await findFreePort();
    gw = await startTestGateway({ KAFKA_BROKERS: `127.0.0.1:${closed}`, KAFKA_TIMEOUT_MS: '2000' });
    await seedDataset(gw, DATASET, 'Live');
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  async function storedCount(): Promise<number> {
    const rows = await gw.sql<{ n: number }>('SELECT ((SELECT count(*) FROM events) + (SELECT count(*) FROM failed_events))::int AS n');
    return rows.rows[0]!.n;
  }

  it('answers POST /v2/data/in with a 503 failure envelope (SERVICE_UNAVAILABLE, EVENT_BUS_UNAVAILABLE) within a few seconds, writing nothing', async () => {
    const started = Date.now();
    const response = await gw.http.post(`/v2/data/in/${DATASET}`).send({ ...envelope('api.data.in', undefined, 'down-1'), data: [{ id: randomUUID() }, { id: randomUUID() }] });
    const elapsed = Date.now() - started;
    expect({ status: response.status, responseCode: response.body.responseCode, code: response.body.error?.code }).toEqual({
      status: 503,
      responseCode: 'SERVICE_UNAVAILABLE',
      code: 'EVENT_BUS_UNAVAILABLE',
    });
    expect(response.body.params).toMatchObject({ status: 'FAILED', msgid: 'down-1' });
    expect(response.body.error.message).toMatch(/Kafka/);
    expect(elapsed).toBeLessThan(5_000);
    expect(await storedCount()).toBe(0);
  });

  it('answers a GraphQL ingest and a burst of concurrent REST ingests just as quickly, each with EVENT_BUS_UNAVAILABLE', async () => {
    const started = Date.now();
    const [viaGraphQL, ...viaRest] = await Promise.all([
      graphql(gw, 'mutation { ingest(datasetId: "kafka_down_events", data: {id: "g"}, msgid: "down-g") { message } }'),
      ...[1, 2, 3, 4].map((n) => gw.http.post(`/v2/data/in/${DATASET}`).send({ ...envelope('api.data.in', undefined, `down-r${n}`), data: { id: `r${n}` } })),
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect({ code: errorCode(viaGraphQL), responseCode: viaGraphQL.errors?.[0]?.extensions?.responseCode }).toEqual({
      code: 'EVENT_BUS_UNAVAILABLE',
      responseCode: 'SERVICE_UNAVAILABLE',
    });
    expect(viaRest.map((response) => [response.status, response.body.error?.code])).toEqual(Array(4).fill([503, 'EVENT_BUS_UNAVAILABLE']));
    expect(await storedCount()).toBe(0);
  });
});

// Runs only where a broker is reachable: KAFKA_BROKERS=host:port npm test -- test/platform/kafka-event-bus.test.ts
const maybe = describeWhen(process.env.KAFKA_BROKERS, 'KAFKA_BROKERS is not set');

maybe('against a real broker (KAFKA_BROKERS)', () => {
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',');
  const topic = `gateway-it-${randomUUID()}`;
  const DATASET = 'kafka_real_events';
  const kafka = new Kafka({ clientId: 'gateway-test', brokers, logLevel: logLevel.NOTHING });
  let gw: TestGateway;

  beforeAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    gw = await startTestGateway({ KAFKA_BROKERS: process.env.KAFKA_BROKERS!, KAFKA_TIMEOUT_MS: '10000' });
    await seedDataset(gw, DATASET, 'Live', { entry_topic: topic, extraction_config: { extraction_key: 'events', dedup_config: { dedup_key: 'id' } } });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('ingests through the gateway and the message can be consumed back in the original shape', async () => {
    const events = [
      { id: 'k1', amount: 1 },
      { id: 'k2', amount: 2 },
    ];
    const response = await gw.http.post(`/v2/data/in/${DATASET}`).send({ ...envelope('api.data.in', undefined, 'real-1'), data: events });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ message: 'Data ingested successfully' });
    // Queued: only the acknowledged count is told, processing is the downstream pipeline's.
    expect([response.headers['x-ingest-outcome'], response.headers['x-events-accepted'], response.headers['x-events-failed']]).toEqual(['queued', '2', undefined]);

    const consumer = kafka.consumer({ groupId: `gateway-test-${randomUUID()}` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = await new Promise<{ key: string; headers: Record<string, string>; value: JsonObject }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message consumed within 20 s')), 20_000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            clearTimeout(timer);
            const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
            resolve({ key: String(message.key), headers, value: JSON.parse(String(message.value)) as JsonObject });
          },
        });
      });
      expect(received.key).toBe('real-1');
      expect(received.headers).toMatchObject({ dataset_id: DATASET, msgid: 'real-1', 'content-type': 'application/json' });
      expect(received.value).toEqual({ events, id: 'real-1', obsrv_meta: OBSRV_META, dataset: DATASET, msgid: 'real-1' });
    } finally {
      await consumer.disconnect();
    }
  }, 60_000);
});
