// `npm run cli -- <command>` or `npx gateway <command>`: talks to a running gateway over HTTP.
// GATEWAY is its address (default http://localhost:3000, the gateway's default PORT); GATEWAY_TOKEN
// a bearer token, or GATEWAY_API_KEY an API key, when the gateway asks for credentials.
import { CliError, createClient } from './client.js';
import { exportDefinition, importDefinition, ingest, showJob } from './commands.js';

const USAGE = `usage: gateway <command> [arguments]

commands:
  export-definition <datasetId> [file]   write a dataset's definition (as import takes it) to file, or stdout
  import-definition <file>               import a definition as the dataset's draft
  ingest <datasetId> <file.jsonl>        send a JSON-lines file of events in batches (--batch N, default 500),
                                         with a progress bar on stderr (batches, events/s, failures)
  job <id> [--wait]                      a job's state, progress and result link; --wait follows it to the end

environment:
  GATEWAY          the gateway's address (default http://localhost:3000)
  GATEWAY_TOKEN    a bearer token (AUTH_MODE=jwt), or
  GATEWAY_API_KEY  an API key (x-api-key)

exit status: 0 done, 1 the gateway refused or could not be reached (or the job did not succeed), 2 bad usage
`;

class UsageError extends Error {}

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  args.splice(index, 2);
  return value;
}

function flag(args: string[], name: string): boolean {
  const index = args.indexOf(name);
  if (index >= 0) args.splice(index, 1);
  return index >= 0;
}

function positional(args: string[], count: { min: number; max: number }, command: string): string[] {
  const unknown = args.find((arg) => arg.startsWith('--'));
  if (unknown) throw new UsageError(`${command}: unknown option ${unknown}`);
  if (args.length < count.min || args.length > count.max)
    throw new UsageError(`${command}: expected ${count.min === count.max ? count.min : `${count.min} to ${count.max}`} arguments, got ${args.length}`);
  return args;
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const call = createClient({ gateway: env.GATEWAY || 'http://localhost:3000', token: env.GATEWAY_TOKEN || undefined, apiKey: env.GATEWAY_API_KEY || undefined });
  const output = { out: (text: string) => void process.stdout.write(text), err: process.stderr };
  switch (command) {
    case 'export-definition': {
      const [datasetId, file] = positional(args, { min: 1, max: 2 }, command);
      await exportDefinition(call, output, datasetId!, file);
      return 0;
    }
    case 'import-definition': {
      const [file] = positional(args, { min: 1, max: 1 }, command);
      await importDefinition(call, output, file!);
      return 0;
    }
    case 'ingest': {
      const batch = option(args, '--batch') ?? '500';
      const batchSize = Number(batch);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError(`--batch must be a whole number of events, at least 1 (got ${batch})`);
      const [datasetId, file] = positional(args, { min: 2, max: 2 }, command);
      await ingest(call, output, datasetId!, file!, { batchSize });
      return 0;
    }
    case 'job': {
      const wait = flag(args, '--wait');
      const [id] = positional(args, { min: 1, max: 1 }, command);
      return (await showJob(call, output, id!, { wait })) ? 0 : 1;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

try {
  process.exitCode = await run(process.argv.slice(2), process.env);
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`gateway: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof CliError) {
    process.stderr.write(`gateway: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
