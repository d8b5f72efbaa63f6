// Where live events come from, once per gateway, whatever the number of subscribers:
// - dataset changes: the database's own announcements (gateway_changes), which every copy hears;
//   each changed dataset is read once and its change classified;
// - alert rule transitions and notification outcomes: the evaluator's announcements (announcements.ts);
// - ingestion counts and metric series: read from the shared metrics store on the step grid, so
//   every gateway gives the same numbers.
import type { ChangeFeed } from '../../platform/cache/change-feed.js';
import type { Logger } from '../../logger.js';
import type { DatasetRecord, DatasetVersionStamp, DatasetVersions } from '../datasets/index.js';
import type { IngestionPoint, SeriesService, TimeSeries } from '../series/index.js';
import { LIVE_TABLE_PREFIX, type AlertRuleTransition, type NotificationOutcomeEvent } from './announcements.js';
import { Channel } from './channel.js';
import { DEFAULT_CHANGE_PAGE, MAX_CHANGE_PAGE, startingPosition } from './change-log.js';
import { CHANGE_STREAM_FIELDS, type ChangeLogStores, type ChangeOf, type ChangeStreamField } from './change-logs.js';
import { ChangeLogStream, ChangeLogTail } from './change-tail.js';
import { GatewayError } from '../../errors.js';

export type DatasetChangeKind = 'CREATED' | 'UPDATED' | 'STATUS_CHANGED' | 'DELETED';

export interface DatasetChange {
  datasetId: string;
  kind: DatasetChangeKind;
  /** The newest version (the Draft when there is one, else the Live); null once deleted. */
  dataset: DatasetRecord | null;
  /** The status this gateway knew before, when it knew one. */
  previousStatus: string | null;
  at: Date;
}

export interface LiveEventsOptions {
  /** The dataset's versions as stored now. */
  datasetVersions(datasetId: string): Promise<DatasetVersions>;
  /** The newest `limit` dataset versions' stamps (what tells a change), to know every dataset's status before its first change. */
  versionStamps(limit: number): Promise<DatasetVersionStamp[]>;
  series: SeriesService;
  /** The change logs of the resumable streams (datasetChanges, alertStateChanges, auditStream) and how long they are kept. */
  changeLogs: { stores: ChangeLogStores };
  logger: Logger;
  /** Events a source keeps for the evaluation reading it (it reads at once; this bounds a stall). */
  sourceCapacity?: number;
  /** Told of each live-query reading a committed change caused, once its answer was handed on (what /metrics shows). */
  onLiveReading?: (timing: LiveReadingTiming) => void;
  now?: () => number;
}

/** Where the time went between a committed change and a live query's answer. */
export interface LiveReadingTiming {
  /** From the change's announcement to the reading's start: LIVE_QUERY_MIN_INTERVAL_MS's hold (by design, up to the interval). */
  heldMs: number;
  /** From the reading's start until its answer was handed to every subscriber (the gateway's own work). */
  readMs: number;
}

/** Announcements of one dataset arriving together (the row's old and new image, the Live and Draft rows) are read once. */
const COALESCE_MS = 20;
/** A step's counts are read this long after the step ends, so a sampling on that instant has landed. */
const AFTER_STEP_MS = 300;
/** Steps a late reading catches up on at most (after a stall longer than this, the oldest are skipped). */
const MAX_CATCH_UP_STEPS = 60;
/** Datasets whose last state is remembered (to tell a status change and to deliver a change once). */
const REMEMBERED_DATASETS = 10_000;

function signatureOf(record: DatasetVersionStamp | undefined): string {
  return record ? `${record.stage}:${record.status}:${record.version}:${record.updatedDate.getTime()}` : 'none';
}

export class LiveEvents {
  private readonly datasetListeners = new Set<(change: DatasetChange) => void>();
  private readonly transitionListeners = new Set<(event: AlertRuleTransition) => void>();
  private readonly notificationListeners = new Set<(event: NotificationOutcomeEvent) => void>();
  /** Live queries' listeners: the table of each committed change ('*': changes may have been missed). */
  private readonly tableListeners = new Set<(table: string) => void>();
  /** Each change log's one reader of new changes, handing them to every subscriber of its stream. */
  private readonly tails: { [F in ChangeStreamField]: ChangeLogTail<ChangeOf<F>> };
  private readonly remembered = new Map<string, { signature: string; status: string | null }>();
  private readonly pendingDatasets = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** Every dataset's state being read (when the first subscriber to all datasets came): changes wait for it. */
  private priming: Promise<void> | undefined;
  /** Whether every dataset's state was read since datasets last had no subscriber (what is remembered is then kept up). */
  private everyDatasetPrimed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly now: () => number;
  private readonly capacity: number;

  constructor(
    changes: Pick<ChangeFeed, 'subscribe'>,
    private readonly options: LiveEventsOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.capacity = options.sourceCapacity ?? 1_000;
    const { stores } = options.changeLogs;
    this.tails = {
      datasetChanges: new ChangeLogTail(stores.datasetChanges, options.logger),
      alertStateChanges: new ChangeLogTail(stores.alertStateChanges, options.logger),
      auditStream: new ChangeLogTail(stores.auditStream, options.logger),
    };
    const tails = CHANGE_STREAM_FIELDS.map((field) => ({ tail: this.tails[field], announcedBy: stores[field].spec.announcedBy }));
    changes.subscribe({
      change: (change) => {
        for (const { tail, announcedBy } of tails) if (announcedBy.includes(change.table)) tail.changed();
        if (change.table === 'datasets' && change.key !== '*') this.datasetAnnounced(change.key);
        else if (change.table.startsWith(LIVE_TABLE_PREFIX)) this.liveAnnounced(change.table.slice(LIVE_TABLE_PREFIX.length), change.key);
        for (const listener of this.tableListeners) listener(change.table);
      },
      // The feed reconnected: changes may have been missed, so every live query reads again.
      reset: () => {
        this.tableListeners.forEach((listener) => listener('*'));
        for (const { tail } of tails) tail.changed();
      },
    });
  }

  private datasetAnnounced(datasetId: string): void {
    if (this.datasetListeners.size === 0) {
      this.remembered.delete(datasetId);
      this.everyDatasetPrimed = false;
      return;
    }
    this.pendingDatasets.add(datasetId);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const ids = [...this.pendingDatasets];
      this.pendingDatasets.clear();
      for (const id of ids) this.readChange(id).catch((error: unknown) => this.options.logger.warn({ err: error, datasetId: id }, 'live: a changed dataset could not be read'));
    }, COALESCE_MS);
  }

  private async readChange(datasetId: string): Promise<void> {
    await this.priming;
    const versions = await this.options.datasetVersions(datasetId);
    const newest = versions.draft ?? versions.live;
    const signature = signatureOf(newest);
    const before = this.remembered.get(datasetId);
    if (before?.signature === signature) return;
    this.remembered.delete(datasetId);
    if (this.remembered.size >= REMEMBERED_DATASETS) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(datasetId, { signature, status: newest?.status ?? null });
    const kind: DatasetChangeKind = !newest
      ? 'DELETED'
      : before && before.status !== null && before.status !== newest.status
        ? 'STATUS_CHANGED'
        : before?.signature === 'none' || (!before && newest.createdDate.getTime() === newest.updatedDate.getTime() && newest.version <= 1)
          ? 'CREATED'
          : 'UPDATED';
    const change: DatasetChange = { datasetId, kind, dataset: newest ?? null, previousStatus: before?.status ?? null, at: new Date(this.now()) };
    for (const listener of this.datasetListeners) listener(change);
  }

  private liveAnnounced(kind: string, payload: string): void {
    let event: unknown;
    try {
      event = JSON.parse(payload);
    } catch {
      return;
    }
    if (kind === 'alert_rule_state') for (const listener of this.transitionListeners) listener(event as AlertRuleTransition);
    else if (kind === 'notification') for (const listener of this.notificationListeners) listener(event as NotificationOutcomeEvent);
  }

  /**
   * When a live query is read: once at once, then after each committed change to one of `tables`
   * (any table when null: the query reads what no table declares), at most once per `minIntervalMs`,
   * and every `refreshMs` when given (figures, which no announcement tells). Changes that come while
   * a reading waits make no second one. `beforeEach` runs as each reading starts.
   */
  liveQueryReadings(tables: readonly string[] | null, options: { minIntervalMs: number; refreshMs?: number; beforeEach?: () => void }): AsyncIterableIterator<true> {
    const watched = tables === null ? null : new Set(tables);
    let lastAt = 0;
    let timer: NodeJS.Timeout | undefined;
    /** When the first change not yet read was announced (refreshes of figures are not changes). */
    let changedAt: number | undefined;
    /** The reading under way, for its timing: when the change it reads was announced, and when it started. */
    let reading: { changedAt: number; startedAt: number } | undefined;
    // One reading waiting is enough: it reads whatever changed before it runs.
    const readings = new Channel<true>({
      capacity: 1,
      onClose: () => {
        this.tableListeners.delete(listener);
        clearTimeout(timer);
        clearInterval(refresh);
      },
    });
    const due = () => {
      timer = undefined;
      lastAt = this.now();
      reading = changedAt === undefined ? undefined : { changedAt, startedAt: lastAt };
      changedAt = undefined;
      readings.push(true);
    };
    const schedule = (change: boolean) => {
      if (change) changedAt ??= this.now();
      if (timer) return;
      timer = setTimeout(due, Math.max(0, lastAt + options.minIntervalMs - this.now()));
    };
    const listener = (table: string) => {
      if (watched && table !== '*' && !watched.has(table)) return;
      schedule(true);
    };
    this.tableListeners.add(listener);
    const refresh = options.refreshMs ? setInterval(() => schedule(false), Math.max(options.refreshMs, options.minIntervalMs)) : undefined;
    due();
    return {
      next: async () => {
        // Asked for the next reading: the last one's answer has been handed to every subscriber.
        if (reading) this.options.onLiveReading?.({ heldMs: reading.startedAt - reading.changedAt, readMs: this.now() - reading.startedAt });
        reading = undefined;
        const next = await readings.next();
        if (!next.done) options.beforeEach?.();
        return next;
      },
      return: () => readings.return(),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  /** A source fed by `listeners` while it is read; reading stops (return) removes it. */
  private fromListeners<T>(listeners: Set<(event: T) => void>, accept: (event: T) => boolean): Channel<T> {
    const listener = (event: T) => {
      if (accept(event)) channel.push(event);
    };
    const channel = new Channel<T>({ capacity: this.capacity, onClose: () => listeners.delete(listener) });
    listeners.add(listener);
    return channel;
  }

  /**
   * Changes of one dataset, or of every dataset (null). For one dataset its current state is read
   * first: it classifies the first change, and a change announced before the subscription (its
   * notification still on the way) is not delivered to it, since that state is what it subscribed to.
   */
  datasetChanges(datasetId: string | null): Channel<DatasetChange> {
    if (datasetId === null) {
      // A subscriber to one dataset reads that one's state; the first to every dataset reads them all.
      if (!this.everyDatasetPrimed) this.primeEveryDataset();
      return this.fromListeners(this.datasetListeners, () => true);
    }
    let subscribedTo: string | undefined;
    const held: DatasetChange[] = [];
    const channel = this.fromListeners(this.datasetListeners, (change) => {
      if (change.datasetId !== datasetId) return false;
      if (subscribedTo === undefined) {
        held.push(change);
        return false;
      }
      return signatureOf(change.dataset ?? undefined) !== subscribedTo;
    });
    const release = (signature: string) => {
      subscribedTo = signature;
      for (const change of held.splice(0)) if (signatureOf(change.dataset ?? undefined) !== signature) channel.push(change);
    };
    this.options
      .datasetVersions(datasetId)
      .then((versions) => {
        const newest = versions.draft ?? versions.live;
        if (!this.remembered.has(datasetId)) this.remembered.set(datasetId, { signature: signatureOf(newest), status: newest?.status ?? null });
        release(signatureOf(newest));
      })
      .catch(() => release(''));
    return channel;
  }

  /**
   * Remembers every dataset's state as it is now, so the first change of a dataset this gateway has
   * not seen change since it started is told as what it is (STATUS_CHANGED, with the status before),
   * not as a bare UPDATED. Changes announced meanwhile wait for it.
   */
  private primeEveryDataset(): void {
    this.everyDatasetPrimed = true;
    const priming = this.options
      .versionStamps(REMEMBERED_DATASETS * 2)
      .then((stamps) => {
        const newest = new Map<string, DatasetVersionStamp>();
        for (const stamp of stamps) if (stamp.stage === 'draft' || !newest.has(stamp.datasetId)) newest.set(stamp.datasetId, stamp);
        for (const [id, stamp] of newest) {
          if (this.remembered.size >= REMEMBERED_DATASETS) break;
          if (!this.remembered.has(id)) this.remembered.set(id, { signature: signatureOf(stamp), status: stamp.status });
        }
      })
      .catch((error: unknown) => {
        this.everyDatasetPrimed = false;
        this.options.logger.warn({ err: error }, 'live: the datasets could not be read; their first changes are told without the status before');
      })
      .finally(() => {
        if (this.priming === priming) this.priming = undefined;
      });
    this.priming = priming;
  }

  /**
   * A change log after `after` (every change since, in commit order), then each change as it is
   * committed, in pages of at most `first`; new changes are read once for all its subscribers (the
   * stream's tail). Refused at once (before any page) for a cursor that is not one, or that retention
   * has passed.
   */
  async changeLog<F extends ChangeStreamField>(field: F, after: string | null | undefined, first: number | null | undefined): Promise<ChangeLogStream<ChangeOf<F>>> {
    const size = first ?? DEFAULT_CHANGE_PAGE;
    if (!Number.isInteger(size) || size < 1 || size > MAX_CHANGE_PAGE) throw new GatewayError('INVALID_INPUT', `first: ${size} is not a page size from 1 to ${MAX_CHANGE_PAGE}`);
    const store = this.options.changeLogs.stores[field];
    const { position, newest } = await startingPosition(store, after, this.now());
    return new ChangeLogStream(store, this.tails[field], position, newest, size);
  }

  /** A stream's tail: its subscribers now and the readings it made (what /metrics and the tests see). */
  changeLogTail(field: ChangeStreamField): { subscribers: number; reads: number } {
    const tail = this.tails[field];
    return { subscribers: tail.size, reads: tail.reads };
  }

  /** Retention of the change logs: deletes the changes made before `cutoff`; how many went, by stream. */
  async deleteChangesBefore(cutoff: Date): Promise<Record<ChangeStreamField, number>> {
    const { stores } = this.options.changeLogs;
    const deleted = {} as Record<ChangeStreamField, number>;
    for (const field of CHANGE_STREAM_FIELDS) deleted[field] = await stores[field].deleteBefore(cutoff);
    return deleted;
  }

  alertTransitions(accept: (event: AlertRuleTransition) => boolean): Channel<AlertRuleTransition> {
    return this.fromListeners(this.transitionListeners, accept);
  }

  notifications(accept: (event: NotificationOutcomeEvent) => boolean): Channel<NotificationOutcomeEvent> {
    return this.fromListeners(this.notificationListeners, accept);
  }

  /**
   * Runs `tick(firstStepEndMs, lastStepEndMs)` after each step of `stepMs` ends, until the returned
   * channel is closed. A reading that ends after the next step has ended (a busy gateway or
   * database) is followed by one for every step since, so no step is skipped.
   */
  private onEachStep<T>(stepMs: number, tick: (firstStepEndMs: number, lastStepEndMs: number, channel: Channel<T>) => Promise<void>, firstUnreadMs?: number): Channel<T> {
    let timer: NodeJS.Timeout | undefined;
    const channel = new Channel<T>({
      capacity: this.capacity,
      onClose: () => {
        if (timer) {
          clearTimeout(timer);
          this.timers.delete(timer);
        }
      },
    });
    /** The end of the first step not yet read. */
    let unread = firstUnreadMs ?? (Math.floor(this.now() / stepMs) + 1) * stepMs;
    /** Waits for the next unread step to end (at least `atLeastMs`), then reads every step since the last read. */
    const schedule = (atLeastMs = 0) => {
      if (channel.isClosed) return;
      timer = setTimeout(
        () => {
          this.timers.delete(timer!);
          const last = Math.max(unread, Math.floor((this.now() - AFTER_STEP_MS) / stepMs) * stepMs);
          const from = Math.max(unread, last - (MAX_CATCH_UP_STEPS - 1) * stepMs);
          tick(from, last, channel).then(
            () => {
              unread = last + stepMs;
              schedule();
            },
            // A failed reading (the database busy or away) is tried again a step later, from the same step.
            (error: unknown) => {
              this.options.logger.warn({ err: error }, 'live: a step could not be read');
              schedule(stepMs);
            },
          );
        },
        Math.max(atLeastMs, unread + AFTER_STEP_MS - this.now()),
      );
      this.timers.add(timer);
    };
    schedule();
    return channel;
  }

  /** The dataset's counts of each step of `everySeconds` as the step ends. */
  ingestionCounts(datasetId: string, everySeconds: number): Channel<IngestionPoint> {
    return this.onEachStep<IngestionPoint>(everySeconds * 1000, async (from, last, channel) => {
      for (const point of await this.options.series.ingestionSeries(datasetId, new Date(from), new Date(last), everySeconds)) channel.push(point);
    });
  }

  /**
   * The window of `rangeSeconds` first, then the point of each new step (the points of several, after
   * a late reading). The window is read before the stream is answered, so an expression the query
   * twin refuses (DATA_METRICS_INVALID_INPUT) refuses the subscription the same way.
   */
  async metricSeries(query: string, rangeSeconds: number, stepSeconds: number): Promise<Channel<TimeSeries[]>> {
    const stepMs = stepSeconds * 1000;
    const end = Math.floor(this.now() / stepMs) * stepMs;
    const window = await this.options.series.metricSeries(query, new Date(end - Math.floor(rangeSeconds / stepSeconds) * stepMs), new Date(end), stepSeconds);
    const channel = this.onEachStep<TimeSeries[]>(
      stepMs,
      async (from, last, steps) => {
        steps.push(await this.options.series.metricSeries(query, new Date(from), new Date(last), stepSeconds));
      },
      end + stepMs,
    );
    channel.push(window);
    return channel;
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    clearTimeout(this.flushTimer);
  }
}
