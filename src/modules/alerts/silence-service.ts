// Silences: an alert's one silence, held by a manager (see service-support.ts for how records and managers stay in step).
import DataLoader from 'dataloader';
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import { legacyEq, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import { checkIdLength, checkName, checkSilenceWindow, COMMENT_MAX_LENGTH, isManagerKind, isUuid } from './rules.js';
import { invalid, type AlertServiceOptions, type ManagerAccess } from './service-support.js';
import { isUniqueViolation, type AlertStore } from './store.js';
import type { Actor, CreateSilenceInput, ListQuery, Page, SilenceFilter, SilenceRecord, SilenceState, UpdateSilenceInput } from './types.js';

export function createSilenceService(store: Pick<AlertStore, 'silences'>, { managers, managerFor, holderOf, undo, logger }: ManagerAccess, options: AlertServiceOptions) {
  const now = options.now ?? (() => new Date());

  function silenceNotFound(id: string): GatewayError {
    return new GatewayError('SILENCE_NOT_FOUND', `Silence ${id} does not exist`);
  }

  async function getSilence(id: string): Promise<SilenceRecord> {
    invalid('SILENCE_INVALID_INPUT', checkIdLength('the silence id', id));
    const record = isUuid(id) ? await store.silences.findById(id) : undefined;
    if (!record) throw silenceNotFound(id);
    return record;
  }

  /** Where a silence stands at `at` (now by default): pending (not started), active, or expired. */
  function silenceState(record: SilenceRecord, at = now().getTime()): SilenceState {
    if (at < record.startTime.getTime()) return 'pending';
    return at < record.endTime.getTime() ? 'active' : 'expired';
  }

  return {
    silenceState,

    /** Whether an alert's silence mutes it at `at` (now by default): while active, its notifications are held back and its rule shows as muted. */
    mutes(record: SilenceRecord | null | undefined, at = now().getTime()): record is SilenceRecord {
      return record !== null && record !== undefined && silenceState(record, at) === 'active';
    },

    getSilence,

    /** The silence of each alert (rule), one statement per request's batch; null for alerts without one. */
    createSilenceLoader(): DataLoader<string, SilenceRecord | null> {
      return new DataLoader(async (alertIds) => {
        const byAlert = new Map((await store.silences.findByAlerts(alertIds.filter(isUuid))).map((record) => [record.alertId, record]));
        return alertIds.map((alertId) => byAlert.get(alertId) ?? null);
      });
    },

    /** The silence of each alert (rule) that has one, by alert id: what rule search and the evaluator show and obey. */
    async silencesOf(alertIds: readonly string[]): Promise<Map<string, SilenceRecord>> {
      return new Map((await store.silences.findByAlerts(alertIds)).map((record) => [record.alertId, record]));
    },

    async listSilences(query: ListQuery<SilenceFilter>): Promise<Page<SilenceRecord>> {
      const { filter: given, ...args } = query;
      const filter = { alertId: given?.alertId ?? null, manager: given?.manager ?? null };
      if (filter.alertId && !isUuid(filter.alertId)) throw new GatewayError('SILENCE_INVALID_INPUT', 'the alertId filter must be a UUID');
      if (filter.manager && !isManagerKind(filter.manager)) throw new GatewayError('SILENCE_INVALID_INPUT', `the manager filter must be one of embedded, alertmanager, grafana`);
      const legacy = { ...legacyEq('alertId', filter.alertId), ...legacyEq('manager', filter.manager) };
      return store.silences.page({ ...args, where: withLegacyFilter(args.where, legacy) }, options.listMax);
    },

    /**
     * Silences an alert. An alert has one silence: silencing it again replaces the old one (the
     * original dropped its row but left the old silence running in Grafana).
     */
    async createSilence(input: CreateSilenceInput, actor: Actor): Promise<SilenceRecord> {
      const code = 'SILENCE_INVALID_INPUT';
      if (!isUuid(input.alertId)) throw new GatewayError(code, `alertId must be a UUID (got ${JSON.stringify(input.alertId.slice(0, 60))})`);
      const manager = managerFor(input.manager, 'silence');
      invalid(code, checkSilenceWindow(input.startDate, input.endDate, now()));
      const comment = input.comment ?? `Silence for alert: ${input.alertId}`;
      invalid(code, checkName('comment', comment, COMMENT_MAX_LENGTH));

      const previous = await store.silences.findByAlert(input.alertId);
      const sameManager = previous?.manager === manager.kind;
      // At the same manager one call replaces the silence (updated in place or expired and renewed).
      const managerSilenceId = await manager.upsertSilence({
        alertId: input.alertId,
        startsAt: input.startDate,
        endsAt: input.endDate,
        comment,
        createdBy: actor.id,
        replaces: sameManager ? previous.managerSilenceId : null,
      });
      const undoNew = () =>
        managerSilenceId !== null && managerSilenceId !== previous?.managerSilenceId ? undo(`expire silence ${managerSilenceId}`, () => manager.expireSilence(managerSilenceId)) : Promise.resolve();
      // At another manager the old silence is ended once the new one stands.
      if (previous && !sameManager) {
        const oldManager = managers.get(previous.manager);
        if (oldManager) {
          try {
            await oldManager.expireSilence(previous.managerSilenceId);
          } catch (error) {
            await undoNew();
            throw error;
          }
        } else {
          logger.warn({ silenceId: previous.id, manager: previous.manager }, 'replaced a silence held by a manager that is no longer configured; it was not expired there');
        }
      }
      try {
        return await store.silences.replace(previous?.id, {
          id: randomUUID(),
          alertId: input.alertId,
          manager: manager.kind,
          managerSilenceId,
          startTime: input.startDate,
          endTime: input.endDate,
          comment,
          createdBy: actor.id,
          updatedBy: actor.id,
        });
      } catch (error) {
        await undoNew();
        if (isUniqueViolation(error)) throw new GatewayError('SILENCE_CONFLICT', `another silence of alert ${input.alertId} was created at the same time; retry`);
        throw error;
      }
    },

    /** Moves a silence's start or end (the original's `startTime`/`endTime` update). */
    async updateSilence(id: string, input: UpdateSilenceInput, actor: Actor): Promise<SilenceRecord> {
      const code = 'SILENCE_INVALID_INPUT';
      if (!input.startDate && !input.endDate) throw new GatewayError(code, 'nothing to update: give startDate, endDate or both');
      const existing = await getSilence(id);
      const startTime = input.startDate ?? existing.startTime;
      const endTime = input.endDate ?? existing.endTime;
      invalid(code, checkSilenceWindow(startTime, endTime, now()));
      const manager = holderOf(existing);
      const managerSilenceId = await manager.upsertSilence({
        alertId: existing.alertId,
        startsAt: startTime,
        endsAt: endTime,
        comment: existing.comment,
        createdBy: actor.id,
        replaces: existing.managerSilenceId,
      });
      const updated = await store.silences.update(id, { startTime, endTime, managerSilenceId, updatedBy: actor.id });
      if (!updated) {
        // Deleted while we were at the manager: do not leave the renewed silence behind.
        if (managerSilenceId !== null) await undo(`expire silence ${managerSilenceId}`, () => manager.expireSilence(managerSilenceId));
        throw silenceNotFound(id);
      }
      return updated;
    },

    /** Ends the silence at its manager, then forgets it. */
    async deleteSilence(id: string): Promise<void> {
      const existing = await getSilence(id);
      // An expired silence needs no call: the manager would only confirm it, and may be down.
      if (existing.endTime.getTime() > now().getTime()) await holderOf(existing).expireSilence(existing.managerSilenceId);
      if (!(await store.silences.delete(id))) throw silenceNotFound(id);
    },
  };
}
