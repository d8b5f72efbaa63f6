// Subscribers to the same operation with the same variables and the same access share one
// evaluation (as Hasura's live queries do): the operation is subscribed once, with a context holding
// that access (never the gateway's own: every link a result reaches is checked as its subscribers'
// query would be), and each result is handed to every subscriber as one SharedResult, formatted and
// serialised once, which the transports write as they are (each with its own bounded queue). Root
// fields are admitted per subscriber before it joins (gate.ts); cost grows with distinct operations
// and access keys, not with subscribers.
import { isAsyncIterable } from './async.js';
import {
  GraphQLError,
  Kind,
  subscribe as graphqlSubscribe,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  print,
} from 'graphql';

export type LiveResult = ExecutionResult;

/** Shapes one error as the HTTP endpoint does (codes kept, unexpected ones masked). */
export type ErrorFormatter = (formatted: GraphQLFormattedError, error: GraphQLError) => GraphQLFormattedError;

/** The result as a subscriber is sent it: errors shaped; a result without errors as it is. */
export function formatLiveResult(result: LiveResult, formatError: ErrorFormatter): FormattedExecutionResult {
  if (!result.errors) return result;
  return { ...(result.data !== undefined ? { data: result.data } : {}), errors: result.errors.map((error) => formatError(error.toJSON(), error)) };
}

/** One result of a shared evaluation: formatted and serialised once, whatever the number of its subscribers. */
export class SharedResult {
  private formattedResult?: FormattedExecutionResult;
  private serialised?: Buffer;

  constructor(
    readonly result: LiveResult,
    private readonly formatError: ErrorFormatter,
  ) {}

  /** The result as subscribers are sent it (errors shaped as the HTTP endpoint shapes them). */
  get formatted(): FormattedExecutionResult {
    this.formattedResult ??= formatLiveResult(this.result, this.formatError);
    return this.formattedResult;
  }

  /** `formatted` as JSON (UTF-8): the payload of every subscriber's `next` message. */
  get json(): Buffer {
    this.serialised ??= Buffer.from(JSON.stringify(this.formatted));
    return this.serialised;
  }
}

/** One subscriber of a shared evaluation, as its transport delivers to it. */
export interface LiveSubscriber {
  /** A result; the same object is handed to every subscriber of the evaluation. */
  deliver(result: SharedResult): void;
  /** The evaluation ended (its source finished, or failed: its last result said why): nothing more comes. */
  end(outcome?: 'completed' | 'failed'): void;
}

/** A subscriber's place in an evaluation; leaving the last place stops the evaluation. */
export interface Membership {
  leave(): void;
}

interface Topic {
  key: string;
  subscribers: Set<LiveSubscriber>;
  /** Whether a subscriber arriving now may join (false once a windowed operation has delivered). */
  joinable: boolean;
  /** The last result delivered, for an operation that delivers changes only: a subscriber joining later is sent it first. */
  last?: SharedResult;
  source?: AsyncIterator<ExecutionResult>;
  ended: boolean;
}

/** Whose access an evaluation runs with: subscribers share an evaluation only when their keys are equal. */
export interface EvaluationAccess {
  /** Equal for callers admitted to exactly the same things (AccessControl.accessKeyOf). */
  key: string;
  /** The context the evaluation runs with, holding that access; made once per evaluation. */
  context(): unknown;
}

export interface SharedSubscriptionsOptions {
  schema: GraphQLSchema;
  /** Shapes the errors of a result as subscribers are sent them (once per result, not per subscriber). */
  formatError: ErrorFormatter;
  /** Operations whose first result is a snapshot (a window): later subscribers start an evaluation of their own. */
  startsWithSnapshot(document: DocumentNode): boolean;
  /** Operations whose results are states (a live query): one equal to the last delivered is not delivered again. */
  deliversChangesOnly(document: DocumentNode): boolean;
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
  /** Documents' printed text (the gate hands the same document to every subscriber of one text). */
  private readonly printed = new WeakMap<DocumentNode, string>();
  private evaluations = 0;

  constructor(private readonly options: SharedSubscriptionsOptions) {}

  /** Distinct evaluations running now. */
  get activeEvaluations(): number {
    return this.evaluations;
  }

  /** Joins the evaluation of this operation, variables and access (starting it if none runs); a result instead when the operation answers one (not a stream). */
  async subscribe(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
    access: EvaluationAccess,
    subscriber: LiveSubscriber,
  ): Promise<Membership | LiveResult> {
    const key = `${access.key}\u0000${this.textOf(document)}\u0000${operationName ?? ''}\u0000${stableJson(variables ?? {})}`;
    let topic = this.topics.get(key);
    if (!topic || !topic.joinable) {
      topic = { key, subscribers: new Set(), joinable: true, ended: false };
      this.topics.set(key, topic);
      const started = await this.start(topic, document, operationName, variables, access);
      if (started !== undefined) return started;
    }
    const joined = topic;
    if (joined.ended) {
      queueMicrotask(() => subscriber.end());
      return { leave: () => undefined };
    }
    joined.subscribers.add(subscriber);
    // A live query's answer now, for a subscriber joining an evaluation that already delivered it.
    if (joined.last) subscriber.deliver(joined.last);
    return { leave: () => this.leave(joined, subscriber) };
  }

  private textOf(document: DocumentNode): string {
    let text = this.printed.get(document);
    if (text === undefined) {
      text = print(document);
      this.printed.set(document, text);
    }
    return text;
  }

  /** Subscribes the operation once; a result (not a stream) is answered to the caller and nothing is shared. */
  private async start(
    topic: Topic,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
    access: EvaluationAccess,
  ): Promise<LiveResult | undefined> {
    let result: Awaited<ReturnType<typeof graphqlSubscribe>>;
    try {
      result = await graphqlSubscribe({ schema: this.options.schema, document, operationName, variableValues: variables, contextValue: access.context() });
    } catch (error) {
      this.forget(topic);
      throw error;
    }
    if (!isAsyncIterable<ExecutionResult>(result)) {
      topic.ended = true;
      this.forget(topic);
      for (const subscriber of [...topic.subscribers]) subscriber.end();
      return result;
    }
    const snapshotFirst = this.options.startsWithSnapshot(document);
    topic.source = result[Symbol.asyncIterator]();
    this.evaluations += 1;
    void this.pump(topic, snapshotFirst, this.options.deliversChangesOnly(document));
    return undefined;
  }

  private async pump(topic: Topic, snapshotFirst: boolean, changesOnly: boolean): Promise<void> {
    const source = topic.source!;
    let outcome: 'completed' | 'failed' = 'completed';
    try {
      while (!topic.ended) {
        const next = await source.next();
        if (next.done) break;
        if (snapshotFirst && topic.joinable) {
          topic.joinable = false;
          this.forget(topic);
        }
        const shared = new SharedResult(next.value, this.options.formatError);
        if (changesOnly) {
          if (topic.last?.json.equals(shared.json)) continue;
          topic.last = shared;
        }
        for (const subscriber of topic.subscribers) subscriber.deliver(shared);
        if (topic.subscribers.size === 0) break;
      }
    } catch (error) {
      // A source that fails ends its subscribers' streams with a last result saying why (masked when
      // unexpected), never a silent end; the transports then complete them.
      outcome = 'failed';
      const failure = error instanceof GraphQLError ? error : new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error instanceof Error ? error : undefined });
      const last = new SharedResult({ errors: [failure] }, this.options.formatError);
      for (const subscriber of topic.subscribers) subscriber.deliver(last);
    } finally {
      topic.ended = true;
      this.evaluations -= 1;
      this.forget(topic);
      const subscribers = [...topic.subscribers];
      topic.subscribers.clear();
      for (const subscriber of subscribers) subscriber.end(outcome);
      await source.return?.().catch(() => undefined);
    }
  }

  private leave(topic: Topic, subscriber: LiveSubscriber): void {
    if (!topic.subscribers.delete(subscriber)) return;
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
