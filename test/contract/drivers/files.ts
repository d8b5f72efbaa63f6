// The two transports of file links: REST's envelope, GraphQL's generateFileUrls (enum names).
import { envelope, graphql } from '../../support/api.js';
import type { StoreGateway } from '../../support/connectors.js';
import type { FileEntry, FilesDriver } from '../files.js';
import { graphqlOutcome, restOutcome } from '../harness.js';

export function restFilesDriver(gw: StoreGateway): FilesDriver {
  return {
    generate: async (files, options = {}) => restOutcome<FileEntry[]>(await gw.http.post('/v2/files/generate-url').send(envelope('api.files.generate-url', { files, ...options }))),
  };
}

const LINKS = `mutation Links($files: [String!]!, $access: FileAccess, $kind: FileKind) {
  generateFileUrls(files: $files, access: $access, kind: $kind) { filePath fileName preSignedUrl }
}`;

export function graphqlFilesDriver(gw: StoreGateway): FilesDriver {
  return {
    generate: async (files, options = {}) =>
      graphqlOutcome<FileEntry[]>(await graphql(gw, LINKS, { files, access: options.access?.toUpperCase() ?? null, kind: options.type?.toUpperCase() ?? null }), 'generateFileUrls'),
  };
}
