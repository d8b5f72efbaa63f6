// Every business rule of pre-signed file links (contract 4.5) lives here; both transports call it,
// and so does connector registration, which keeps its distributions in the same store.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import { storeFailure, type ObjectStore } from '../../platform/object-store/object-store.js';
import { downloadKey, FILE_NAME_MAX_LENGTH, uploadKey } from './rules.js';
import { FILE_ACCESSES, FILE_KINDS, type FileKind, type SignedFile, type GenerateUrlsInput } from './types.js';

export interface FileServiceOptions {
  /** Most files one call may name. */
  urlLimit: number;
  /** Lifetime of the links. */
  urlExpirySeconds: number;
  now?: () => number;
}

/** The original's six hex characters; they tell apart uploads of the same name. */
function newSuffix(): string {
  return randomUUID().replaceAll('-', '').slice(0, 6);
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

export function createFileService(store: ObjectStore, options: FileServiceOptions) {
  const invalid = (message: string) => new GatewayError('FILES_GENERATE_URL_INPUT_INVALID', message);

  return {
    /** Upload (`write`, the default) or download (`read`) links for up to `urlLimit` files, signed together. */
    async generateUrls(input: GenerateUrlsInput): Promise<SignedFile[]> {
      const access = input.access ?? 'write';
      if (!isOneOf(FILE_ACCESSES, access)) throw invalid(`access must be one of ${FILE_ACCESSES.join(', ')} (got ${JSON.stringify(access).slice(0, 40)})`);
      const kind = input.kind ?? 'dataset';
      if (!isOneOf(FILE_KINDS, kind)) throw invalid(`type must be one of ${FILE_KINDS.join(', ')} (got ${JSON.stringify(kind).slice(0, 40)})`);
      if (input.files.length === 0) throw invalid('files must name at least one file');
      if (input.files.length > options.urlLimit) {
        throw new GatewayError(
          'FILES_URL_GENERATION_LIMIT_EXCEED',
          `Pre-signed URL generation failed: limit exceeded. At most ${options.urlLimit} files per call (FILES_URL_LIMIT; got ${input.files.length}).`,
        );
      }
      const keys = input.files.map((name, index) => {
        if (name.length === 0) throw invalid(`files[${index}] must not be empty`);
        if (name.length > FILE_NAME_MAX_LENGTH) throw invalid(`files[${index}] is ${name.length} characters long; at most ${FILE_NAME_MAX_LENGTH} are allowed`);
        const checked = access === 'write' ? uploadKey(kind, name, newSuffix()) : downloadKey(kind, name);
        if (checked.problem) throw invalid(`files[${index}] (${JSON.stringify(name.slice(0, 80))}): ${checked.problem}`);
        return checked.key!;
      });
      // One instant for the links and the expiresAt said of them: read twice, a second could turn between.
      const signedAt = options.now?.() ?? Date.now();
      const expiresAt = new Date(signedAt + options.urlExpirySeconds * 1000);
      let urls: string[];
      try {
        urls = await Promise.all(keys.map((key) => store.signedUrl(key, access, options.urlExpirySeconds, signedAt)));
      } catch (error) {
        const failure = storeFailure(error);
        throw new GatewayError('FILES_GENERATE_URL_FAILURE', `Failed to generate pre-signed URLs: ${failure.summary}`, failure);
      }
      return keys.map((filePath, index) => ({ filePath, fileName: input.files[index]!, preSignedUrl: urls[index]!, expiresAt }));
    },

    /** Stores a finished local file (e.g. a connector distribution) under a new key of its kind; returns the key. */
    async storeFile(kind: FileKind, fileName: string, filePath: string, contentType: string): Promise<string> {
      const checked = uploadKey(kind, fileName, newSuffix());
      const key = checked.key ?? uploadKey(kind, 'upload', newSuffix()).key!;
      await store.putFile(key, filePath, contentType);
      return key;
    },

    /** Stores a local file under a key the gateway chose itself (a job's result), replacing what was there. */
    async storeAt(key: string, filePath: string, contentType: string): Promise<void> {
      await store.putFile(key, filePath, contentType);
    },

    /** A download link to a stored file, valid for FILES_URL_EXPIRY_SECONDS, as generateUrls signs them. */
    async readLink(key: string): Promise<{ url: string; expiresAt: Date }> {
      const signedAt = options.now?.() ?? Date.now();
      const expiresAt = new Date(signedAt + options.urlExpirySeconds * 1000);
      try {
        return { url: await store.signedUrl(key, 'read', options.urlExpirySeconds, signedAt), expiresAt };
      } catch (error) {
        const failure = storeFailure(error);
        throw new GatewayError('FILES_GENERATE_URL_FAILURE', `Failed to generate a pre-signed URL: ${failure.summary}`, failure);
      }
    },

    /** Removes a stored file; used to undo a store whose follow-up failed. */
    async removeFile(key: string): Promise<void> {
      await store.delete(key);
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
