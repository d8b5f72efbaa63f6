// Subscribers to the same operation with the same variables share one evaluation (as Hasura's live
// queries do): the operation is subscribed once, with the gateway's own context, and each result is
// handed to every subscriber's bounded queue (the transports format errors as they send). Access is decided per subscriber
// before it joins (gate.ts); cost grows with distinct operations, not with subscribers.
import { isAsyncIterable } from './async.js';
import { Kind, subscribe as graphqlSubscribe, type DocumentNode, type ExecutionResult, type GraphQLSchema, print } from 'graphql';
import { Channel } from './channel.js';

export type LiveResult = ExecutionResult;

/** What one subscriber needs from the transport. */
export interface SubscriberHooks {
  /** Its queue is full: the transport drops it (4429). */
  onOverflow(): void;
}

interface Topic {
  key: string;
  subscribers: Set<Channel<LiveResult>>;
  /** Whether a subscriber arriving now may join (false once a windowed operation has delivered). */
  joinable: boolean;
  source?: AsyncIterator<ExecutionResult>;
  ended: boolean;
}

export interface SharedSubscriptionsOptions {
  schema: GraphQLSchema;
  /** The context shared evaluations run with (the gateway's own: access was checked per subscriber). */
  context(): unknown;
  /** Results a subscriber may fall behind by before it is dropped. */
  queueCapacity: number;
  /** Operations whose first result is a snapshot (a window): later subscribers start an evaluation of their own. */
  startsWithSnapshot(document: DocumentNode): boolean;
}

/** The root fields the document's operations select. */
export function subscribedFields(document: DocumentNode): string[] {
  const names: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const selection of definition.selectionSet.selections) if (selection.kind === Kind.FIELD) names.push(selection.name.value);
  }
  return names;
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
}

export class SharedSubscriptions {
  private readonly topics = new Map<string, Topic>();
  private evaluations = 0;

  constructor(private readonly options: SharedSubscriptionsOptions) {}

  /** Distinct evaluations running now. */
  get activeEvaluations(): number {
    return this.evaluations;
  }

  async subscribe(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
    hooks: SubscriberHooks,
  ): Promise<AsyncIterableIterator<LiveResult> | LiveResult> {
    const key = `${print(document)}\u0000${operationName ?? ''}\u0000${stableJson(variables ?? {})}`;
    let topic = this.topics.get(key);
    if (!topic || !topic.joinable) {
      topic = { key, subscribers: new Set(), joinable: true, ended: false };
      this.topics.set(key, topic);
      const started = await this.start(topic, document, operationName, variables);
      if (started !== undefined) return started;
    }
    const joined = topic;
    const channel: Channel<LiveResult> = new Channel<LiveResult>({
      capacity: this.options.queueCapacity,
      onOverflow: () => hooks.onOverflow(),
      onClose: () => this.leave(joined, channel),
    });
    if (joined.ended) channel.close();
    else joined.subscribers.add(channel);
    return channel;
  }

  /** Subscribes the operation once; a result (not a stream) is answered to the caller and nothing is shared. */
  private async start(topic: Topic, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> | null | undefined): Promise<LiveResult | undefined> {
    let result: Awaited<ReturnType<typeof graphqlSubscribe>>;
    try {
      result = await graphqlSubscribe({ schema: this.options.schema, document, operationName, variableValues: variables, contextValue: this.options.context() });
    } catch (error) {
      this.forget(topic);
      throw error;
    }
    if (!isAsyncIterable<ExecutionResult>(result)) {
      topic.ended = true;
      this.forget(topic);
      for (const subscriber of [...topic.subscribers]) subscriber.close();
      return result;
    }
    const snapshotFirst = this.options.startsWithSnapshot(document);
    topic.source = result[Symbol.asyncIterator]();
    this.evaluations += 1;
    void this.pump(topic, snapshotFirst);
    return undefined;
  }

  private async pump(topic: Topic, snapshotFirst: boolean): Promise<void> {
    const source = topic.source!;
    try {
      while (!topic.ended) {
        const next = await source.next();
        if (next.done) break;
        if (snapshotFirst && topic.joinable) {
          topic.joinable = false;
          this.forget(topic);
        }
        for (const subscriber of topic.subscribers) subscriber.push(next.value);
        if (topic.subscribers.size === 0) break;
      }
    } catch {
      // A source that fails ends its subscribers' streams (the transports then complete them).
    } finally {
      topic.ended = true;
      this.evaluations -= 1;
      this.forget(topic);
      for (const subscriber of [...topic.subscribers]) subscriber.close();
      await source.return?.().catch(() => undefined);
    }
  }

  private leave(topic: Topic, channel: Channel<LiveResult>): void {
    topic.subscribers.delete(channel);
    if (topic.subscribers.size === 0 && !topic.ended) {
      // The last one left: stop evaluating (the pump sees the source end).
      topic.ended = true;
      this.forget(topic);
      void topic.source?.return?.().catch(() => undefined);
    }
  }

  private forget(topic: Topic): void {
    if (this.topics.get(topic.key) === topic) this.topics.delete(topic.key);
  }
}
