// Domain types of pre-signed file links (contract 2.5, 4.5).

/** `write` gives upload links (the default), `read` download links. */
export const FILE_ACCESSES = ['read', 'write'] as const;

export const FILE_KINDS = ['dataset', 'connector'] as const;
/** Which area of the object store a file belongs to: dataset uploads, or connector distributions. */
export type FileKind = (typeof FILE_KINDS)[number];

export interface SignedFile {
  /** The object key: for uploads, the sanitised name with a generated suffix. */
  filePath: string;
  /** The name as the caller gave it. */
  fileName: string;
  preSignedUrl: string;
  expiresAt: Date;
}

export interface GenerateUrlsInput {
  files: readonly string[];
  access?: string | null;
  kind?: string | null;
}

/** GraphQL's FileAccess values and what this domain calls each (resolvers, codegen and REST all read this). */
export const FILE_ACCESS_VALUES = { READ: 'read', WRITE: 'write' } as const;

/** GraphQL's FileKind values and what this domain calls each (resolvers, codegen and REST all read this). */
export const FILE_KIND_VALUES = { DATASET: 'dataset', CONNECTOR: 'connector' } as const;
