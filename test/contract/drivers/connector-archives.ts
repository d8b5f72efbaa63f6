// The two transports of connector registration: REST's multipart part file3, GraphQL's multipart request.
import { registerOverGraphQL, registerOverRest, type StoreGateway } from '../../support/connectors.js';
import type { ArchivesDriver } from '../connector-archives.js';
import { graphqlServiceOutcome, mapOutcome, restOutcome } from '../harness.js';

export function restArchivesDriver(gw: StoreGateway): ArchivesDriver {
  return { register: async (bytes, filename) => restOutcome(await registerOverRest(gw, bytes, filename)) };
}

export function graphqlArchivesDriver(gw: StoreGateway): ArchivesDriver {
  return {
    register: async (bytes, filename) => mapOutcome(graphqlServiceOutcome<{ message: string }>(await registerOverGraphQL(gw, bytes, filename), 'registerConnector'), ({ message }) => ({ message })),
  };
}
