// REST entry for pre-signed file links (contract 4.5). The schema checks shape only: how many files
// and how long their names are the service's rules, with one message on both transports.
import type { RestGenerateFileUrlsMutation, RestGenerateFileUrlsMutationVariables } from '../src/generated/rest-operations.js';
import { requestOfOperation, toInput, type InputShape } from './input-shape.js';
import { defineEndpoint } from './table.js';

const GENERATE: InputShape = {
  type: /* GraphQL */ `
    mutation RestGenerateFileUrls($files: [String!]!, $access: FileAccess, $kind: FileKind) {
      generateFileUrls(files: $files, access: $access, kind: $kind) {
        filePath
        fileName
        preSignedUrl
      }
    }
  `,
  rename: { files: 'files', access: 'access', type: 'kind' },
};

export const fileEndpoints = [
  defineEndpoint<RestGenerateFileUrlsMutation, RestGenerateFileUrlsMutationVariables>({
    method: 'POST',
    path: '/v2/files/generate-url',
    // The original serves the same links at url-access without any access check; here both names
    // need the same permission.
    aliases: ['/v2/files/url-access'],
    apiId: 'api.files.generate-url',
    summary: 'Upload (access write, the default) or download (access read) links for files (also at /v2/files/url-access)',
    invalidInputCode: 'FILES_GENERATE_URL_INPUT_INVALID',
    errorCodes: ['FILES_URL_GENERATION_LIMIT_EXCEED', 'FILES_GENERATE_URL_FAILURE'],
    ...requestOfOperation('api.files.generate-url', GENERATE, { requestRequired: true }),
    // Upload links to the dataset area unless the request says otherwise.
    variables: (input) => ({ access: 'WRITE', kind: 'DATASET', ...toInput<RestGenerateFileUrlsMutationVariables>(GENERATE, input.body.request) }),
    result: (data) => data.generateFileUrls,
  }),
];
