// Reads a multipart/form-data body that carries one file (any part name; the contract's register
// call uses `file3`) into a temporary file, and wraps it as the `Upload` a GraphQL client's file
// becomes with graphql-upload-minimal. A REST entry marked `multipart` thus runs the same mutation,
// with the same service rules, as GraphQL. Spooling the whole body first lets the edge refuse a
// second file or an oversized one before the operation starts.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import busboy, { type Busboy } from 'busboy';
import { Upload, type FileUpload } from 'graphql-upload-minimal';
import { sizeText } from '../src/config/values.js';

/** The body is not one acceptable file; the message says why (answered as the entry's bad-input code). */
export class MultipartRefused extends Error {
  override readonly name = 'MultipartRefused';
}

export interface ReceivedFile {
  /** Ready to pass as an `Upload!` variable. */
  upload: Upload;
  filename: string;
  size: number;
  /** Removes the temporary file; call once the operation has finished. */
  discard(): Promise<void>;
}

export interface MultipartOptions {
  /** Largest file accepted. */
  limitBytes: number;
  /** The setting the limit comes from, named when a file is refused for passing it. */
  setting: string;
  /** Where the temporary file goes (default: the system's temporary folder). */
  dir?: string;
}

const NO_FILE = 'the request must be multipart/form-data with one file part (e.g. file3)';

export async function receiveSingleFile(req: Request, options: MultipartOptions): Promise<ReceivedFile> {
  let parser: Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      // Text fields are allowed (and ignored) but small; only one file is read.
      limits: { files: 1, fileSize: options.limitBytes, fields: 20, fieldSize: 64 * 1024, parts: 40, headerPairs: 200 },
    });
  } catch {
    req.resume();
    throw new MultipartRefused(NO_FILE);
  }

  const folder = await mkdtemp(path.join(options.dir ?? os.tmpdir(), 'gateway-upload-'));
  const discard = () => rm(folder, { recursive: true, force: true });
  const target = path.join(folder, 'file');

  try {
    const received = await new Promise<{ filename: string; mimetype: string; encoding: string; fieldName: string; size: number }>((resolve, reject) => {
      let file: { filename: string; mimetype: string; encoding: string; fieldName: string } | undefined;
      let written: Promise<void> | undefined;
      let size = 0;
      let truncated = false;
      let secondFile = false;
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        req.unpipe(parser);
        req.resume();
        reject(error);
      };

      parser.on('file', (fieldName, stream, info) => {
        file = { filename: info.filename ?? 'upload', mimetype: info.mimeType, encoding: info.encoding, fieldName };
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
        });
        stream.on('limit', () => {
          truncated = true;
        });
        written = pipeline(stream, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
        written.catch(fail);
      });
      parser.on('filesLimit', () => {
        secondFile = true;
      });
      parser.on('error', (error: unknown) => fail(new MultipartRefused(`the multipart body could not be read: ${(error as Error).message}`)));
      parser.on('close', () => {
        (written ?? Promise.resolve()).then(() => {
          if (settled) return;
          if (secondFile) return fail(new MultipartRefused('Uploading multiple files are not allowed'));
          if (truncated) return fail(new MultipartRefused(`the file is larger than the ${options.limitBytes}-byte upload limit (${options.setting}=${sizeText(options.limitBytes)})`));
          if (!file) return fail(new MultipartRefused(NO_FILE));
          settled = true;
          resolve({ ...file, size });
        }, fail);
      });
      req.on('aborted', () => fail(new MultipartRefused('the request was aborted during the upload')));
      req.pipe(parser);
    });

    const upload = new Upload();
    const fileUpload = {
      filename: received.filename,
      mimetype: received.mimetype,
      encoding: received.encoding,
      fieldName: received.fieldName,
      createReadStream: () => createReadStream(target),
    };
    // Upload's typings omit resolve(), which graphql-upload-minimal itself calls the same way.
    (upload as unknown as { resolve(file: FileUpload): void }).resolve(fileUpload);
    return { upload, filename: received.filename, size: received.size, discard };
  } catch (error) {
    await discard();
    throw error;
  }
}
