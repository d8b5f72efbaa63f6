// The files module as code outside src/modules/files/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export { FILE_ACCESS_VALUES, FILE_KIND_VALUES, type SignedFile } from './types.js';
export { filesFieldPermissions } from './permissions.js';
export { FILE_NAME_MAX_LENGTH } from './rules.js';
export { createFileService, type FileService } from './service.js';
export { fileResolvers } from './resolvers.js';
