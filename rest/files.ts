// REST entry for pre-signed file links (contract 4.5). The schema checks shape only: how many files
// and how long their names are the service's rules, with one message on both transports.
import type { RestGenerateFileUrlsMutation, RestGenerateFileUrlsMutationVariables } from '../src/generated/rest-operations.js';
import { domainValues, enumName, ENUMS } from './enum-names.js';
import { defineEndpoint, requestOf } from './table.js';
import { envelopeSchema } from './validation.js';

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
    bodySchema: envelopeSchema(
      'api.files.generate-url',
      {
        type: 'object',
        properties: {
          files: { type: 'array', items: { type: 'string' } },
          access: { type: 'string', enum: domainValues(ENUMS.FileAccess) },
          type: { type: 'string', enum: domainValues(ENUMS.FileKind) },
        },
        required: ['files'],
        additionalProperties: false,
      },
      { requestRequired: true },
    ),
    operation: /* GraphQL */ `
      mutation RestGenerateFileUrls($files: [String!]!, $access: FileAccess, $kind: FileKind) {
        generateFileUrls(files: $files, access: $access, kind: $kind) {
          filePath
          fileName
          preSignedUrl
        }
      }
    `,
    variables: (input) => {
      const r = requestOf<{ files: string[]; access?: string; type?: string }>(input);
      return {
        files: r.files,
        access: enumName(ENUMS.FileAccess, r.access ?? 'write'),
        kind: enumName(ENUMS.FileKind, r.type ?? 'dataset'),
      };
    },
    result: (data) => data.generateFileUrls,
  }),
];
