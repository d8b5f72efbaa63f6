// Kafka event bus (kafkajs): idempotent producer, acks=all, gzip, and concurrent requests sent
// together in one produce call. A broker that cannot be reached fails fast (bounded retries)
// with a 503-class error; nothing is reported as ingested unless the broker acknowledged it.
import { CompressionTypes, Kafka, logLevel, type Admin, type Producer, type TopicMessages } from 'kafkajs';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { EventBus, EventBusStats, IngestMessage, PublishOutcome } from './event-bus.js';

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  /** Longest a publish may take, retries included. */
  timeoutMs: number;
}

/** The slice of a kafkajs producer we use, so tests can give their own. */
export type KafkaProducer = Pick<Producer, 'connect' | 'disconnect' | 'sendBatch'>;

export function createKafkaProducer(settings: KafkaSettings): KafkaProducer {
  const kafka = new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    connectionTimeout: Math.min(3_000, settings.timeoutMs),
    requestTimeout: settings.timeoutMs,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
    logLevel: logLevel.NOTHING,
  });
  return kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
}

/**
 * Asks the cluster to describe itself (a round trip to a broker) on an admin connection of its own,
 * kept between checks; rejects naming the brokers and the reason.
 */
export interface KafkaProbe {
  check(): Promise<void>;
  close(): Promise<void>;
}

export function createKafkaProbe(settings: KafkaSettings): KafkaProbe {
  const kafka = new Kafka({
    clientId: `${settings.clientId}-probe`,
    brokers: settings.brokers,
    connectionTimeout: Math.min(3_000, settings.timeoutMs),
    requestTimeout: settings.timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin | undefined;
  const check = async () => {
    admin ??= kafka.admin();
    const current = admin;
    try {
      await withTimeout(
        (async () => {
          await current.connect();
          await current.describeCluster();
        })(),
        settings.timeoutMs,
      );
    } catch (error) {
      // Connected afresh next time.
      admin = undefined;
      await current.disconnect().catch(() => undefined);
      throw new Error(`Kafka at ${settings.brokers.join(',')} does not answer: ${(error as Error).message}`, { cause: error });
    }
  };
  return { check, close: async () => void (await admin?.disconnect().catch(() => undefined)) };
}

interface Pending {
  message: IngestMessage;
  events: number;
  resolve: (outcome: PublishOutcome) => void;
  reject: (error: unknown) => void;
}

export class KafkaEventBus implements EventBus {
  readonly name: string;
  private connecting?: Promise<void>;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private inFlight = 0;
  private failed = 0;
  private connected = false;

  constructor(
    private readonly producer: KafkaProducer,
    private readonly settings: KafkaSettings,
    private readonly logger: Logger,
    /** The readiness check (createKafkaProbe); none: the bus is not checked. */
    private readonly probe?: KafkaProbe,
  ) {
    this.name = `Kafka at ${settings.brokers.join(',')}`;
  }

  async check(): Promise<void> {
    await this.probe?.check();
  }

  publish(message: IngestMessage): Promise<PublishOutcome> {
    const events = countEvents(message);
    return new Promise((resolve, reject) => {
      this.queue.push({ message, events, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Everything published in this turn of the event loop goes out in one sendBatch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    const byTopic = new Map<string, TopicMessages>();
    for (const { message } of batch) {
      const topic = byTopic.get(message.topic) ?? { topic: message.topic, messages: [] };
      topic.messages.push({ key: message.key, headers: message.headers, value: JSON.stringify(message.value) });
      byTopic.set(message.topic, topic);
    }
    const deadline = Date.now() + this.settings.timeoutMs;
    this.inFlight += 1;
    try {
      await withTimeout(this.send([...byTopic.values()]), this.settings.timeoutMs);
      for (const pending of batch) pending.resolve({ accepted: pending.events });
    } catch (error) {
      // One dataset's topic missing (or not ours to write) fails kafkajs's metadata step, before
      // anything is produced: the other datasets' events are sent again, each topic on its own, so
      // that only the requests for that topic are refused. A request is one message to one topic, so
      // each is acknowledged or refused whole.
      if (byTopic.size > 1 && refusedTopic(error) && deadline - Date.now() > 0) await this.sendEachTopic(batch, byTopic, deadline);
      else this.fail(batch, error);
    } finally {
      this.inFlight -= 1;
    }
  }

  private async sendEachTopic(batch: Pending[], byTopic: Map<string, TopicMessages>, deadline: number): Promise<void> {
    await Promise.all(
      [...byTopic.values()].map(async (topicMessages) => {
        const pending = batch.filter(({ message }) => message.topic === topicMessages.topic);
        try {
          await withTimeout(this.send([topicMessages]), Math.max(1, deadline - Date.now()));
          for (const each of pending) each.resolve({ accepted: each.events });
        } catch (error) {
          this.fail(pending, error);
        }
      }),
    );
  }

  private fail(batch: Pending[], error: unknown): void {
    this.failed += 1;
    const topic = refusedTopic(error);
    // A refused topic says nothing about the connection.
    if (!topic) {
      this.connected = false;
      this.connecting = undefined;
    }
    this.logger.warn({ err: error, messages: batch.length, ...(topic ? { topic: batch[0]?.message.topic } : {}) }, 'Kafka publish failed');
    // A refusal means nothing was written; a timeout cannot promise that (the broker may still
    // take the message), so it says so: a retry is safe where the dataset drops duplicates.
    const timedOut = error instanceof PublishTimeout;
    const failure = new GatewayError(
      'EVENT_BUS_UNAVAILABLE',
      timedOut
        ? `Kafka did not acknowledge the events within ${this.settings.timeoutMs} ms; they may still arrive. Retry the request (a dataset that drops duplicates keeps one copy).`
        : topic
          ? `The events were not ingested: Kafka refused topic ${batch[0]?.message.topic ?? ''} (${topic}): create the dataset's entry topic, or let the gateway write to it. Nothing was written; retry the request then.`
          : `The events were not ingested: Kafka refused them (${(error as Error).message}). Nothing was written; retry the request.`,
    );
    for (const pending of batch) pending.reject(failure);
  }

  stats(): EventBusStats {
    return { queuedMessages: this.queue.length, inFlightBatches: this.inFlight, failedBatches: this.failed, connected: this.connected };
  }

  private async send(topicMessages: TopicMessages[]): Promise<void> {
    this.connecting ??= this.producer.connect();
    await this.connecting;
    this.connected = true;
    await this.producer.sendBatch({ topicMessages, acks: -1, compression: CompressionTypes.GZIP, timeout: this.settings.timeoutMs });
  }

  async close(): Promise<void> {
    if (this.connecting) await this.producer.disconnect().catch(() => undefined);
    await this.probe?.close();
  }
}

function countEvents(message: IngestMessage): number {
  if ('event' in message.value) return 1;
  return Object.values(message.value).find(Array.isArray)?.length ?? 0;
}

class PublishTimeout extends Error {}

/** Kafka's refusals of a topic as such, which kafkajs raises while it reads the topics' metadata, before it produces anything. */
const TOPIC_REFUSALS = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'INVALID_TOPIC_EXCEPTION', 'TOPIC_AUTHORIZATION_FAILED']);

/** The refusal's type when `error` (or what it wraps: kafkajs's retries keep the last error as its cause) is a refusal of a topic. */
function refusedTopic(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    const type = (current as { type?: unknown }).type;
    if (typeof type === 'string' && TOPIC_REFUSALS.has(type)) return type;
  }
  return undefined;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PublishTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
