// Reads an extracted connector distribution laid out as the original expects (reference §4.3):
// `metadata.json` and `ui-config.json` side by side, at the archive's root or in its single top
// folder (a Python sdist or a tarred folder), with the connector's source folder `<id>-<version>`
// being that top folder or inside it. Every refusal says what is missing or wrong.
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { entrySegments } from './archive.js';
import { declaredConnectors, metadataProblem, sourceFolderName, uiSpecFor, type DistributionMetadata } from './rules.js';
import type { JsonObject } from './types.js';

/** A distribution that cannot be registered, and why. */
export class DistributionRefused extends Error {
  override readonly name = 'DistributionRefused';
}

const METADATA_FILE = 'metadata.json';
const UI_CONFIG_FILE = 'ui-config.json';
/** Deepest nesting a distribution's JSON files may have (a form description needs a few dozen at most). */
const MAX_JSON_DEPTH = 64;
const MAX_METADATA_BYTES = 256 * 1024;
const MAX_UI_CONFIG_BYTES = 2 * 1024 * 1024;
const MAX_ICON_BYTES = 256 * 1024;
const ICON_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
};

export interface DeclaredConnector {
  id: string;
  name: string;
  description: string | null;
  iconUrl: string | null;
  uiSpec: JsonObject;
}

export interface Distribution {
  metadata: DistributionMetadata;
  connectors: DeclaredConnector[];
}

async function isFile(file: string): Promise<boolean> {
  return (await lstat(file).catch(() => undefined))?.isFile() ?? false;
}

async function isDirectory(dir: string): Promise<boolean> {
  return (await lstat(dir).catch(() => undefined))?.isDirectory() ?? false;
}

/** The folder holding metadata.json: the root, or the root's only folder. */
async function findBase(root: string): Promise<string> {
  if (await isFile(path.join(root, METADATA_FILE))) return root;
  const entries = await readdir(root, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory());
  if (folders.length === 1 && (await isFile(path.join(root, folders[0]!.name, METADATA_FILE)))) return path.join(root, folders[0]!.name);
  throw new DistributionRefused('unable to locate the metadata file: metadata.json must be at the root of the archive or in its single top folder');
}

async function readJson(file: string, label: string, maxBytes: number): Promise<unknown> {
  const { size } = await lstat(file);
  if (size > maxBytes) throw new DistributionRefused(`${label} is larger than ${maxBytes} bytes`);
  const text = await readFile(file, 'utf8');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new DistributionRefused(`${label} is not valid JSON: ${(error as Error).message}`);
  }
  // What later walks the document (validation, storing it as jsonb) recurses: refuse deep nesting first.
  const tooDeep = pathDeeperThan(document, MAX_JSON_DEPTH);
  if (tooDeep !== undefined) throw new DistributionRefused(`${label} nests deeper than ${MAX_JSON_DEPTH} levels (at ${tooDeep.slice(0, 200)})`);
  return document;
}

/** An icon given as a file of the distribution becomes a data URI (as the original stores it); URLs are kept. */
async function iconUrl(base: string, icon: string | null): Promise<string | null> {
  if (!icon) return null;
  if (/^(https?:\/\/|data:image\/)/i.test(icon)) return icon;
  let segments: string[];
  try {
    segments = entrySegments(icon);
  } catch (error) {
    throw new DistributionRefused(`metadata.json: icon ${(error as Error).message.replace(/^entry /, '')}`);
  }
  const type = ICON_TYPES[path.extname(icon).toLowerCase()];
  if (!type) throw new DistributionRefused(`metadata.json: icon ${JSON.stringify(icon)} must be a URL or a ${Object.keys(ICON_TYPES).join(', ')} file`);
  const file = path.join(base, ...segments);
  if (!(await isFile(file))) throw new DistributionRefused(`metadata.json: icon file ${JSON.stringify(icon)} is not in the archive`);
  if ((await lstat(file)).size > MAX_ICON_BYTES) throw new DistributionRefused(`icon file ${JSON.stringify(icon)} is larger than ${MAX_ICON_BYTES} bytes`);
  return `data:${type};base64,${(await readFile(file)).toString('base64')}`;
}

/** Reads and checks the distribution extracted into `root`; throws DistributionRefused saying what is wrong. */
export async function readDistribution(root: string): Promise<Distribution> {
  const base = await findBase(root);
  const document = await readJson(path.join(base, METADATA_FILE), METADATA_FILE, MAX_METADATA_BYTES);
  const problem = metadataProblem(document);
  if (problem) throw new DistributionRefused(`metadata.json is invalid: ${problem}`);
  const metadata = document as DistributionMetadata;

  const folder = sourceFolderName(metadata);
  if (path.basename(base) !== folder && !(await isDirectory(path.join(base, folder)))) {
    throw new DistributionRefused(`connector source folder not found; expecting ${folder} folder inside the archive`);
  }
  if (!(await isFile(path.join(base, UI_CONFIG_FILE)))) {
    throw new DistributionRefused('unable to locate the ui configuration file: ui-config.json must be next to metadata.json');
  }
  const uiConfig = await readJson(path.join(base, UI_CONFIG_FILE), UI_CONFIG_FILE, MAX_UI_CONFIG_BYTES);

  const declared = declaredConnectors(metadata);
  const ids = new Set<string>();
  const connectors: DeclaredConnector[] = [];
  for (const connector of declared) {
    if (ids.has(connector.id)) throw new DistributionRefused(`metadata.json declares connector ${connector.id} twice`);
    ids.add(connector.id);
    const ui = uiSpecFor(uiConfig, connector.id);
    if (ui.problem) throw new DistributionRefused(ui.problem);
    connectors.push({ id: connector.id, name: connector.name, description: connector.description, iconUrl: await iconUrl(base, connector.icon), uiSpec: ui.spec! });
  }
  return { metadata, connectors };
}
