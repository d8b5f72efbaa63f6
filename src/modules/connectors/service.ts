// Every business rule of the connector registry lives here; both transports call these functions.
// Registration takes an uploaded distribution through four steps, each of which can refuse it
// before anything is kept: spool the upload (size cap), extract it safely (archive.ts), read its
// metadata and ui spec (distribution.ts), then store the archive in object storage and make the
// declared versions Live in one transaction. A failure after the store removes the stored archive.
import DataLoader from 'dataloader';
import { consoleForm } from './console-form.js';
import { checkLegacyValues, legacyIn, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { GatewayError } from '../../errors.js';
import { storeFailure } from '../../platform/object-store/object-store.js';
import type { FileService } from '../files/index.js';
import { ArchiveRefused, archiveFormatOf, extractArchive, type ExtractionLimits } from './archive.js';
import { BUILT_IN_CONNECTORS } from './builtins.js';
import { DistributionRefused, readDistribution } from './distribution.js';
import { registryValues } from './rules.js';
import { isUniqueViolation, type ConnectorStore } from './store.js';
import type { Actor } from '../../auth/actor.js';
import { sizeText } from '../../config/values.js';
import type { ConnectorListQuery, ConnectorPage, ConnectorRecord, ConnectorStatus, UploadedFile } from './types.js';

export interface ConnectorServiceOptions {
  /** Most connectors one list call returns. */
  listMax: number;
  /** Largest distribution accepted. */
  uploadLimitBytes: number;
  /** Where uploads are spooled and extracted (one folder per registration, removed afterwards). */
  workDir: string;
  archive: ExtractionLimits;
  /** contract: ui_spec as contract 2.4 lays it out; console: the original console's form (console-form.ts). */
  uiSpecFormat?: 'contract' | 'console';
}

class UploadTooLarge extends Error {}

const SYSTEM: Actor = { id: 'SYSTEM' };

/**
 * Copies an upload to `target`, refusing it once it passes `limit` bytes. On refusal the rest of
 * the upload is read and dropped rather than left unread: a multipart parser (and the client still
 * sending) would otherwise wait for it forever.
 */
function spool(stream: Readable, target: string, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let size = 0;
    let settled = false;
    const output = createWriteStream(target, { flags: 'wx', mode: 0o600 });
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      stream.unpipe(output);
      output.destroy();
      stream.resume();
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(new UploadTooLarge(`the file is larger than the ${limit}-byte upload limit (CONNECTOR_UPLOAD_LIMIT=${sizeText(limit)})`));
    });
    stream.on('error', fail);
    output.on('error', fail);
    output.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve(size);
    });
    stream.pipe(output);
  });
}

/** Longest connector version id a read takes (ids are `<connector id>-<version>`). */
const CONNECTOR_ID_MAX_LENGTH = 200;

export function createConnectorService(store: ConnectorStore, files: FileService, options: ConnectorServiceOptions) {
  const registrationFailed = (message: string) => new GatewayError('FAILED_TO_REGISTER_CONNECTOR', message);
  const uploadFailed = (message: string) => new GatewayError('FAILED_TO_UPLOAD', message);

  const uiSpecOf = (record: ConnectorRecord): unknown => (options.uiSpecFormat === 'console' ? consoleForm(record.uiSpec) : record.uiSpec);

  function notFound(id: string): GatewayError {
    return new GatewayError('CONNECTOR_NOT_FOUND', `Connector not found: ${id}`);
  }

  async function receive(file: UploadedFile | Promise<UploadedFile>): Promise<{ upload: UploadedFile; stream: Readable }> {
    try {
      const upload = await file;
      return { upload, stream: upload.createReadStream() };
    } catch (error) {
      throw uploadFailed(`the upload could not be read: ${(error as Error).message}`);
    }
  }

  return {
    /** The ui_spec a read shows, in the configured layout. */
    uiSpecOf,

    /** Adds the built-in connectors whose ids are not in the registry yet; safe to run at every start. */
    seedBuiltIns(): Promise<number> {
      return store.seed(
        BUILT_IN_CONNECTORS.map((connector) => ({ ...connector, status: 'Live' as const, updatedBy: SYSTEM.id })),
        SYSTEM.id,
      );
    },

    /**
     * Finds the connector each name means, batching one request's lookups into one statement: the
     * version with that id, else the Live version of the connector with that id (dataset
     * definitions name either).
     */
    createLoader(): DataLoader<string, ConnectorRecord | undefined> {
      return new DataLoader(async (names) => {
        const found = await store.findNamed(names);
        return names.map((name) => found.find((record) => record.id === name) ?? found.find((record) => record.connectorId === name && record.status === 'Live'));
      });
    },

    /** One version by id; `status` narrows it (the REST read asks for Live, or Draft with mode=edit). */
    async get(id: string, status?: ConnectorStatus | null): Promise<ConnectorRecord> {
      // No version id is that long: the caller's mistake, not a missing connector.
      if (id.length > CONNECTOR_ID_MAX_LENGTH) throw new GatewayError('CONNECTOR_READ_INVALID_INPUT', `connector_id is ${id.length} characters long; at most ${CONNECTOR_ID_MAX_LENGTH} are allowed`);
      const record = await store.find(id, status ?? undefined);
      if (!record) throw notFound(id);
      return record;
    },

    /** A page of the registry; with `fields` (what the reader's selection needs), each record holds only those. */
    async list(query: ConnectorListQuery, fields?: ReadonlySet<string>): Promise<ConnectorPage> {
      const code = 'CONNECTORS_LIST_INPUT_INVALID';
      // The original refuses empty filter lists rather than reading them as "match nothing".
      if (query.statuses && query.statuses.length === 0) throw new GatewayError(code, 'filters.status must have at least one item');
      if (query.categories && query.categories.length === 0) throw new GatewayError(code, 'filters.category must have at least one item');
      checkLegacyValues(code, 'status', query.statuses);
      checkLegacyValues(code, 'category', query.categories);
      const { statuses, categories, ...args } = query;
      return store.page({ ...args, where: withLegacyFilter(args.where, { ...legacyIn('status', statuses), ...legacyIn('category', categories) }) }, options.listMax, fields);
    },

    /**
     * Registers the connector version(s) an uploaded distribution declares: stores the archive,
     * makes each version Live and retires the connector's previous Live version; answers the versions,
     * now Live. Any archive that cannot be read or does not describe a connector changes nothing.
     */
    async register(file: UploadedFile | Promise<UploadedFile>, actor: Actor): Promise<ConnectorRecord[]> {
      const { upload, stream } = await receive(file);
      const format = archiveFormatOf(upload.filename);
      if (!format) {
        stream.resume();
        throw uploadFailed(`Failed to register connector: ${JSON.stringify(upload.filename.slice(0, 200))} is not a .tar.gz, .tgz or .zip archive`);
      }

      await mkdir(options.workDir, { recursive: true });
      const work = await mkdtemp(path.join(options.workDir, 'connector-'));
      try {
        const archivePath = path.join(work, format === 'zip' ? 'upload.zip' : 'upload.tar.gz');
        try {
          await spool(stream, archivePath, options.uploadLimitBytes);
        } catch (error) {
          if (error instanceof UploadTooLarge) throw uploadFailed(error.message);
          throw uploadFailed(`the upload could not be read: ${(error as Error).message}`);
        }

        let distribution;
        try {
          await extractArchive(archivePath, format, path.join(work, 'extract'), options.archive);
          distribution = await readDistribution(path.join(work, 'extract'));
        } catch (error) {
          // An archive that cannot be read or breaks a rule is the caller's to fix: 400, the entry's bad-input code.
          if (error instanceof ArchiveRefused) throw uploadFailed(`Failed to extract the file: ${error.message}`);
          if (error instanceof DistributionRefused) throw uploadFailed(`Failed to register connector: ${error.message}`);
          throw error;
        }

        let key: string;
        try {
          key = await files.storeFile('connector', upload.filename, archivePath, upload.mimetype || 'application/octet-stream');
        } catch (error) {
          const failure = storeFailure(error);
          throw new GatewayError('FAILED_TO_REGISTER_CONNECTOR', `Failed to register connector: the distribution could not be stored: ${failure.summary}`, failure);
        }
        const entries = distribution.connectors.map((connector) => ({
          ...registryValues(distribution.metadata, connector, { iconUrl: connector.iconUrl, uiSpec: connector.uiSpec, sourceUrl: key, updatedBy: actor.id }),
          status: 'Live' as const,
        }));
        try {
          return await store.makeLive(entries, actor.id);
        } catch (error) {
          await files.removeFile(key).catch(() => undefined);
          if (isUniqueViolation(error)) {
            throw registrationFailed(`Failed to register connector: the id ${entries.map((entry) => entry.id).join(', ')} is taken by another connector's version`);
          }
          throw error;
        }
      } finally {
        // Retries cover a file handle the system is still closing (ENOTEMPTY, EBUSY).
        await rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
      }
    },
  };
}

export type ConnectorService = ReturnType<typeof createConnectorService>;
