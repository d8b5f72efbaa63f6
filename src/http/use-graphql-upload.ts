// Accepts GraphQL multipart requests (file uploads, graphql-upload-minimal) on /graphql and answers a
// malformed one with a GraphQL-shaped 4xx instead of the generic 500. JSON requests pass untouched.
import type { NextFunction, Request, Response } from 'express';
import { graphqlUploadExpress } from 'graphql-upload-minimal';

export interface GraphQLUploadOptions {
  /** Largest file accepted; the service enforces it and reports it with its own error code. */
  maxFileBytes: number;
  /** Files per request (default 1: registration takes one distribution). */
  maxFiles?: number;
}

export function useGraphQLUpload(options: GraphQLUploadOptions) {
  // One byte over the limit: the parser then cuts the file only after the service has seen it pass
  // the limit, so an oversized upload is refused as such rather than read as a truncated archive.
  const upload = graphqlUploadExpress({ maxFileSize: options.maxFileBytes + 1, maxFiles: options.maxFiles ?? 1 });
  return (req: Request, res: Response, next: NextFunction) => {
    upload(req, res, (error?: unknown) => {
      if (!error) return next();
      const status = (error as { status?: unknown }).status;
      const httpStatus = typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
      res.status(httpStatus).json({ errors: [{ message: (error as Error).message, extensions: { code: 'BAD_REQUEST' } }] });
    });
  };
}
