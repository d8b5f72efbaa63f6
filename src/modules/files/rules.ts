// How caller-given file names become object keys (contract 4.5), as plain functions returning the
// key or the reason a name is refused. Upload names are sanitised (they are someone's local file
// name); download names are validated, never rewritten (they name an object that exists).
import { objectKeyProblem } from '../../platform/object-store/object-store.js';
import type { FileKind } from './types.js';

/** Where each kind of file lives in the store. */
export const KEY_PREFIXES: Record<FileKind, string> = { dataset: 'user_uploads', connector: 'connectors' };

/** Longest name a call may give: an S3 object key's own limit (1,024 bytes), which a longer name could not fit. */
export const FILE_NAME_MAX_LENGTH = 1024;
/** Longest stored base name; longer upload names are cut, keeping the extension. */
const STORED_NAME_MAX_LENGTH = 200;
const EXTENSION_MAX_LENGTH = 16;
// C0 and C1 control characters, DEL included.
const CONTROL_CHARACTERS = /\p{Cc}/gu;
// Letters and digits of any script, and a few punctuation marks; anything else becomes '_'.
const UNSAFE_CHARACTERS = /[^\p{L}\p{N}._()-]/gu;

export interface NameCheck {
  key?: string;
  problem?: string;
}

/** Splits off the extension (`.tar.gz` counts as one), which the generated suffix goes before. */
export function splitExtension(name: string): [string, string] {
  if (/\.tar\.gz$/i.test(name) && name.length > 7) return [name.slice(0, -7), name.slice(-7)];
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.length - dot > EXTENSION_MAX_LENGTH) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/**
 * The stored name of an upload: the last path segment of what the caller gave (so `../../x` and
 * `C:\\dir\\x` are just `x`), control characters dropped, unsafe characters replaced, no leading
 * dots, at most 200 characters.
 */
export function sanitiseUploadName(name: string): NameCheck {
  const base = name.replace(CONTROL_CHARACTERS, '').split(/[\\/]/).pop()!.normalize('NFC').trim();
  let safe = base.replace(UNSAFE_CHARACTERS, '_').replace(/^\.+/, '');
  if (!/[\p{L}\p{N}]/u.test(safe)) return { problem: 'the name has no letters or digits to name a file with' };
  if (safe.length > STORED_NAME_MAX_LENGTH) {
    const [stem, extension] = splitExtension(safe);
    safe = stem.slice(0, STORED_NAME_MAX_LENGTH - extension.length) + extension;
  }
  return { key: safe };
}

/** The upload's object key: `<prefix>/<name>_<suffix><ext>`, the suffix telling apart uploads of one name. */
export function uploadKey(kind: FileKind, name: string, suffix: string): NameCheck {
  const sanitised = sanitiseUploadName(name);
  if (sanitised.problem) return sanitised;
  const [stem, extension] = splitExtension(sanitised.key!);
  return { key: `${KEY_PREFIXES[kind]}/${stem}_${suffix}${extension}` };
}

/**
 * The object key a download name points at: the name under the kind's prefix (a `filePath` an
 * upload link returned is accepted as well). Traversal, absolute paths, backslashes and control
 * characters are refused rather than cleaned, so a download never reaches a different object.
 */
export function downloadKey(kind: FileKind, name: string): NameCheck {
  // Control characters, backslashes and traversal are the object store's own key rules (objectKeyProblem).
  if (name.startsWith('/')) return { problem: 'the name is an absolute path' };
  const prefix = `${KEY_PREFIXES[kind]}/`;
  const key = name.startsWith(prefix) ? name : prefix + name;
  const problem = objectKeyProblem(key);
  return problem ? { problem: problem.replace('the key', 'the name') } : { key };
}
