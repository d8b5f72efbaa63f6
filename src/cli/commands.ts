// The CLI's commands, each over the gateway's REST API (the same routes, access and answers any
// client gets): dataset definitions out and in, events from a file, and a job's status.
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CliError, envelope, type Call } from './client.js';
import { bar, count, progressLine } from './progress.js';

export interface Output {
  out: (text: string) => void;
  err: NodeJS.WriteStream;
}

export async function exportDefinition(call: Call, output: Output, datasetId: string, file?: string): Promise<void> {
  const answer = await call('GET', `/v2/datasets/export/${encodeURIComponent(datasetId)}`);
  const json = `${JSON.stringify(answer.body.result, null, 2)}\n`;
  if (!file) return output.out(json);
  await writeFile(file, json);
  output.err.write(`exported the definition of ${datasetId} to ${file}\n`);
}

export async function importDefinition(call: Call, output: Output, file: string): Promise<void> {
  let definition: unknown;
  try {
    definition = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not a JSON definition: ${(error as Error).message}`}`);
  }
  const answer = await call('POST', '/v2/datasets/import', { body: envelope('api.datasets.import', { request: definition }) });
  const result = answer.body.result as { message: string; data: { id: string; version_key: string } };
  output.out(`${result.message} (dataset ${result.data.id}, version_key ${result.data.version_key})\n`);
}

export interface IngestOptions {
  /** Events per call (at most INGEST_MAX_BATCH on the gateway). */
  batchSize: number;
}

export async function ingest(call: Call, output: Output, datasetId: string, file: string, options: IngestOptions): Promise<void> {
  const size = await stat(file).then(
    (info) => info.size,
    () => {
      throw new CliError(`${file}: no such file`);
    },
  );
  const started = Date.now();
  const totals = { events: 0, batches: 0, processed: 0, failed: 0, duplicates: 0, bytes: 0 };
  const line = progressLine(output.err);
  const show = (force = false) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    line.update(
      `${bar(size === 0 ? 1 : totals.bytes / size)} ${count(totals.events)} events · ${count(totals.batches)} batches · ${count(totals.events / seconds)} events/s · ${count(totals.failed)} failed`,
      { force },
    );
  };
  let batch: unknown[] = [];
  let batchBytes = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const answer = await call('POST', `/v2/data/in/${encodeURIComponent(datasetId)}`, { body: envelope('api.data.in', { data: batch }) });
    const header = (name: string) => Number(answer.headers.get(name) ?? 0);
    totals.events += batch.length;
    totals.batches += 1;
    totals.processed += header('x-events-processed');
    totals.failed += header('x-events-failed');
    totals.duplicates += header('x-events-duplicates');
    totals.bytes += batchBytes;
    batch = [];
    batchBytes = 0;
    show();
  };

  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const text of lines) {
      number += 1;
      batchBytes += Buffer.byteLength(text) + 1;
      if (text.trim() === '') continue;
      try {
        batch.push(JSON.parse(text));
      } catch (error) {
        throw new CliError(`${file}, line ${number}: not JSON (${(error as Error).message}); ${count(totals.events)} events before it were sent`);
      }
      if (batch.length >= options.batchSize) await send();
    }
    await send();
  } finally {
    lines.close();
    show(true);
    line.end();
  }
  const seconds = (Date.now() - started) / 1000;
  output.out(
    `ingested ${count(totals.events)} events into ${datasetId} in ${count(totals.batches)} batches (${seconds.toFixed(1)} s, ${count(totals.events / Math.max(seconds, 0.001))} events/s): ` +
      `${count(totals.processed)} processed, ${count(totals.failed)} failed, ${count(totals.duplicates)} duplicates\n`,
  );
}

interface JobAnswer {
  id: string;
  kind: string;
  state: string;
  progress: { done: number; total: number | null; unit: string };
  result: { url: string; expiresAt: string } | null;
  error: { code: string; message: string } | null;
}

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

function describeJob(job: JobAnswer): string {
  const { done, total, unit } = job.progress;
  const progress = total ? `${bar(done / total)} ${count(done)}/${count(total)} ${unit}` : `${count(done)} ${unit}`;
  return `job ${job.id} (${job.kind}): ${job.state} ${progress}`;
}

/** Prints a job; with `wait`, follows it until it finishes. Answers whether it SUCCEEDED (or is still going, without wait). */
export async function showJob(call: Call, output: Output, id: string, options: { wait: boolean; intervalMs?: number }): Promise<boolean> {
  const read = async () => (await call('GET', `/v2/jobs/${encodeURIComponent(id)}`)).body.result as JobAnswer;
  let job = await read();
  if (options.wait) {
    const line = progressLine(output.err);
    let last = '';
    while (!FINAL.has(job.state)) {
      const text = describeJob(job);
      if (text !== last) line.update(text, { force: true });
      last = text;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
      job = await read();
    }
    line.end();
  }
  output.out(`${describeJob(job)}\n`);
  if (job.result) output.out(`result: ${job.result.url} (until ${job.result.expiresAt})\n`);
  if (job.error) output.out(`error: ${job.error.code}: ${job.error.message}\n`);
  return job.state === 'SUCCEEDED' || !FINAL.has(job.state);
}
