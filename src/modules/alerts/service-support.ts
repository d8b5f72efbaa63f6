// What the alerting services share: the configured managers, and undoing a manager's change.
//
// Records and managers stay in step by one rule: the manager is asked first, and our record is
// written (or changed, or removed) only once the manager said yes. A manager that fails leaves our
// record as it was, so it never claims what the manager does not hold. When our own write fails
// after the manager said yes, the manager's change is undone (best effort, logged when it fails).
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AlertManager, AlertManagers } from '../../platform/alert-manager/alert-manager.js';
import type { ManagerNames } from './manager-names.js';
import type { ManagerKind } from './types.js';

const MANAGER_SETTING: Record<ManagerKind, string> = { embedded: '(always available)', alertmanager: 'ALERTMANAGER_URL', grafana: 'GRAFANA_URL' };

export interface AlertServiceOptions {
  /** Most records one list call returns. */
  listMax: number;
  /** The clock, replaceable in tests. */
  now?: () => Date;
}

export function invalid(code: ErrorCode, problem: string | undefined): void {
  if (problem !== undefined) throw new GatewayError(code, problem);
}

export function createManagerAccess(managers: AlertManagers, names: ManagerNames, logger: Logger) {
  /** The configured manager a request's `manager` (a name, an alias, or none) resolves to. */
  function managerFor(name: string | null | undefined, purpose: 'silence' | 'channel'): AlertManager {
    return managers.get(names.resolveManager(name, purpose))!;
  }

  /** The manager holding an existing record; it may have been configured away since. */
  function holderOf(record: { manager: ManagerKind }): AlertManager {
    const manager = managers.get(record.manager);
    if (!manager)
      throw new GatewayError(
        'ALERT_MANAGER_FAILED',
        `this record is held by the ${record.manager} manager, which is no longer configured (set ${MANAGER_SETTING[record.manager]}); nothing was changed`,
      );
    return manager;
  }

  /** Undoes a manager change after our own write failed; the original error is what the caller sees. */
  async function undo(what: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      logger.warn({ err: error }, `could not undo at the alert manager: ${what}`);
    }
  }

  return { managers, names, logger, managerFor, holderOf, undo };
}

export type ManagerAccess = ReturnType<typeof createManagerAccess>;
