// The embedded alert manager: the gateway's own records in PostgreSQL are the silences and the
// channels, so there is nothing to call. Test messages of its channels are sent by the gateway's
// notifiers (SMTP or the outbox folder, webhooks).
import type { AlertManager, ChannelPort } from './alert-manager.js';

export class EmbeddedAlertManager implements AlertManager {
  readonly kind = 'embedded' as const;
  readonly description = 'embedded (records in PostgreSQL)';

  readonly channels: ChannelPort = {
    async create() {},
    async update() {},
    async remove() {},
  };

  async upsertSilence(): Promise<string | null> {
    return null;
  }

  async expireSilence(): Promise<void> {}
}
