// Alerting's services, one per aggregate (silences, metric aliases, notification channels), offered
// to resolvers, REST and the alert rules as one: every business rule of alerting lives in them, and
// both transports call these functions.
import type { Logger } from '../../logger.js';
import type { AlertManagers } from '../../platform/alert-manager/alert-manager.js';
import type { Notifier } from '../../platform/notifier/notifier.js';
import { createChannelService } from './channel-service.js';
import type { ManagerNames } from './manager-names.js';
import { createMetricAliasService } from './metric-alias-service.js';
import { createManagerAccess, type AlertServiceOptions } from './service-support.js';
import { createSilenceService } from './silence-service.js';
import type { AlertStore } from './store.js';

export { NOTIFICATION_SENT } from './channel-service.js';
export type { AlertServiceOptions } from './service-support.js';

export function createAlertService(store: AlertStore, managers: AlertManagers, names: ManagerNames, notifier: Notifier, logger: Logger, options: AlertServiceOptions) {
  const access = createManagerAccess(managers, names, logger);
  return {
    ...createSilenceService(store, access, options),
    ...createMetricAliasService(store, options),
    ...createChannelService(store, access, notifier, options),
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
