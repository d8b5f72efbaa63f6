// The work each kind of job does, over the other modules' services. An uploaded file is spooled to a
// folder of the job's own before the start answers: the transport removes its copy once the request
// has been answered, while the job reads it later.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import type { FileUpload } from 'graphql-upload-minimal';
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { Services } from '../../context.js';
import type { Actor } from '../../auth/actor.js';
import { SCHEMA_INFERENCE_LIMITS } from '../schema-inference/index.js';
import type { JobWork, ProgressReporter } from './types.js';

/** Progress of an inference is written once per this many events read (about ten writes for the largest file). */
const EVENTS_PER_REPORT = 1_000;

interface SpooledFile {
  path: string;
  filename: string;
  mimetype: string;
  size: number;
  release: () => Promise<void>;
}

/** Copies an upload to a folder of its own; a failure to read it is the caller's (`code`), naming why. */
async function spool(file: FileUpload | Promise<FileUpload>, code: ErrorCode): Promise<SpooledFile> {
  const upload = await file;
  const folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-job-input-'));
  const release = () => rm(folder, { recursive: true, force: true });
  const target = path.join(folder, 'input');
  try {
    await pipeline(upload.createReadStream(), createWriteStream(target));
  } catch (error) {
    await release();
    throw new GatewayError(code, `the upload could not be read: ${(error as Error).message} (uploads may be as large as CONNECTOR_UPLOAD_LIMIT)`);
  }
  return { path: target, filename: upload.filename, mimetype: upload.mimetype, size: (await stat(target)).size, release };
}

const invalidSamples = (message: string) => new GatewayError('DATA_SCHEMA_INVALID_INPUT', message);

/** The first character that is not white space: `[` for one JSON array, else JSON lines. */
async function firstCharacter(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    for (let position = 0; ; position += buffer.length) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return '';
      const text = buffer.subarray(0, bytesRead).toString('utf8').trimStart();
      if (text.length > 0) return text[0]!;
    }
  } finally {
    await handle.close();
  }
}

/** Events of a JSON-lines or JSON-array file, reporting bytes read; refuses past the inference's sample limit. */
async function readSamples(file: SpooledFile, report: ProgressReporter, signal: AbortSignal): Promise<unknown[]> {
  const max = SCHEMA_INFERENCE_LIMITS.maxSamples;
  const tooMany = () => invalidSamples(`the file holds more than ${max} events; at most ${max} are inferred from at once`);
  if ((await firstCharacter(file.path)) === '[') {
    let samples: unknown;
    try {
      samples = JSON.parse(await readFile(file.path, 'utf8'));
    } catch (error) {
      throw invalidSamples(`the file starts with [ but is not one JSON array: ${(error as Error).message}`);
    }
    if (!Array.isArray(samples)) throw invalidSamples('the file starts with [ but is not one JSON array');
    if (samples.length > max) throw tooMany();
    await report(file.size);
    return samples as unknown[];
  }
  const samples: unknown[] = [];
  let bytes = 0;
  let line = 0;
  const lines = createInterface({ input: createReadStream(file.path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of lines) {
    line += 1;
    bytes += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    try {
      samples.push(JSON.parse(text));
    } catch (error) {
      lines.close();
      throw invalidSamples(`line ${line} of ${JSON.stringify(file.filename.slice(0, 200))} is not JSON: ${(error as Error).message}`);
    }
    if (samples.length > max) {
      lines.close();
      throw tooMany();
    }
    if (samples.length % EVENTS_PER_REPORT === 0) {
      if (signal.aborted || !(await report(Math.min(bytes, file.size)))) {
        lines.close();
        return samples;
      }
    }
  }
  await report(file.size);
  return samples;
}

export async function schemaInferenceWork(services: Services, file: FileUpload | Promise<FileUpload>, dataset: string): Promise<JobWork> {
  const spooled = await spool(file, 'DATA_SCHEMA_INVALID_INPUT');
  return {
    kind: 'SCHEMA_INFERENCE',
    unit: 'bytes',
    total: spooled.size,
    release: spooled.release,
    async run(report, signal) {
      const samples = await readSamples(spooled, report, signal);
      if (signal.aborted) return null;
      return services.schemaInference.infer({ samples, dataset });
    },
  };
}

type ExportStatus = Parameters<Services['datasets']['export']>[1];

export async function datasetExportWork(services: Services, id: string, status: ExportStatus): Promise<JobWork> {
  // A dataset that is not there fails the start itself, as the synchronous export does.
  await services.datasets.requireExisting(id);
  return {
    kind: 'DATASET_EXPORT',
    unit: 'steps',
    total: 1,
    async run(report) {
      const definition = await services.datasets.export(id, status);
      await report(1);
      return definition;
    },
  };
}

export async function connectorRegistrationWork(services: Services, file: FileUpload | Promise<FileUpload>, actor: Actor): Promise<JobWork> {
  const spooled = await spool(file, 'FAILED_TO_UPLOAD');
  return {
    kind: 'CONNECTOR_REGISTRATION',
    unit: 'steps',
    total: 1,
    release: spooled.release,
    async run(report) {
      const upload = { filename: spooled.filename, mimetype: spooled.mimetype, createReadStream: () => createReadStream(spooled.path) };
      const connectors = await services.connectors.register(upload, actor);
      await report(1);
      return { message: 'connector registered successfully.', connectors: connectors.map(({ id, connectorId, name, version, status }) => ({ id, connectorId, name, version, status })) };
    },
  };
}
