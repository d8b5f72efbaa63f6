// E-mail through nodemailer: to the SMTP server of SMTP_URL, or, when none is configured, into an
// outbox folder as .eml files (the embedded default: nothing leaves the machine, and what would
// have been sent can be read).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTransport } from 'nodemailer';
import { GatewayError } from '../../errors.js';
import type { DeliveryReport } from './channel.js';
import { redactUrl } from '../../logger.js';

export interface EmailSender {
  readonly description: string;
  send(to: string[], subject: string, text: string): Promise<DeliveryReport>;
}

export interface SmtpSettings {
  /** `smtp://user:pass@host:587` or `smtps://...`; query options as nodemailer reads them. */
  url: string;
  from: string;
  timeoutMs: number;
}

function failed(where: string, error: unknown): GatewayError {
  const e = error as { response?: string; code?: string; message?: string };
  return new GatewayError('NOTIFICATION_FAILED', `${where} did not take the message: ${e.response ?? e.message ?? String(error)}${e.code ? ` (${e.code})` : ''}`);
}

export class SmtpEmailSender implements EmailSender {
  readonly description: string;
  private readonly transport;

  constructor(private readonly settings: SmtpSettings) {
    this.description = `SMTP at ${redactUrl(settings.url)}`;
    this.transport = createTransport({
      url: settings.url,
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
    });
  }

  async send(to: string[], subject: string, text: string): Promise<DeliveryReport> {
    let info;
    try {
      info = await this.transport.sendMail({ from: this.settings.from, to, subject, text });
    } catch (error) {
      throw failed(this.description, error);
    }
    // The server may take some recipients and refuse others: a test must say so, not "sent".
    const rejected = (info.rejected ?? []).map(String);
    if (rejected.length > 0) {
      throw new GatewayError('NOTIFICATION_FAILED', `${this.description} refused ${rejected.join(', ')}: ${info.response ?? ''}`.trim());
    }
    return { transport: 'smtp', response: info.response };
  }
}

export class OutboxEmailSender implements EmailSender {
  readonly description: string;
  private readonly transport = createTransport({ streamTransport: true, buffer: true });

  constructor(
    private readonly dir: string,
    private readonly from: string,
  ) {
    this.description = `outbox folder ${dir} (no SMTP_URL configured)`;
  }

  async send(to: string[], subject: string, text: string): Promise<DeliveryReport> {
    try {
      const info = await this.transport.sendMail({ from: this.from, to, subject, text });
      await mkdir(this.dir, { recursive: true });
      const file = path.join(this.dir, `${new Date().toISOString().replaceAll(':', '-')}-${info.messageId.replace(/[^A-Za-z0-9.@-]/g, '')}.eml`);
      await writeFile(file, info.message as Buffer);
      return { transport: 'outbox', response: `written to ${file}` };
    } catch (error) {
      throw failed(this.description, error);
    }
  }
}
