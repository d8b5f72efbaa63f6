// REST GET reads whose answer the published cache keeps, noted by the URL they were asked with, so
// the fast path (fast-path.ts) can find a kept answer from the raw request line alone. The REST
// router notes a URL only after routing and validating it and answering it from a kept result; the
// same URL routes and validates the same way again, so the note only says where that result is
// kept. The result itself stays in the published cache, which drops it on a change: a note whose
// result is gone is forgotten, and the URL goes the normal way until it is kept again.
import type { CachePart } from '../platform/cache/published-cache.js';
import type { PreparedAnswer } from './kept-answer.js';

export interface KeptRead {
  /** The REST entry's API id, path template and the dataset its path names (for access, metrics and the log). */
  apiId: string;
  route: string;
  datasetId: string | undefined;
  part: CachePart<PreparedAnswer>;
  key: string;
}

export class KeptReads {
  private readonly urls = new Map<string, KeptRead>();

  constructor(private readonly maxUrls: number) {}

  remember(url: string, read: KeptRead): void {
    if (this.urls.has(url)) return;
    this.urls.set(url, read);
    if (this.urls.size > this.maxUrls) this.urls.delete(this.urls.keys().next().value!);
  }

  /** The read noted for `url` and its kept answer, while the cache keeps it. */
  find(url: string): { read: KeptRead; answer: PreparedAnswer } | undefined {
    const read = this.urls.get(url);
    if (!read) return undefined;
    const answer = read.part.get(read.key);
    if (answer) return { read, answer };
    this.urls.delete(url);
    return undefined;
  }
}
