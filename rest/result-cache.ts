// Serialise once, serve many: the `result` of a REST read (a dataset, a template, a connector, or a
// list of them) kept as its JSON text, keyed by the request, for entries that declare the tables
// their result is made of. Any announced change to one of those tables drops every result of the
// entry (lists and reads alike: a change may move a record in or out of any page); a result read
// while a change was announced is not kept. Nothing is kept while announcements are not received.
import { createHash } from 'node:crypto';
import type { ChangeFeed } from '../src/platform/cache/change-feed.js';

export interface CachedResult {
  /** The envelope's `result`, serialised. */
  json: string;
  /** A validator of the result itself (not of the envelope around it), for If-None-Match. */
  etag: string;
}

/** The weak ETag of a serialised result: equal results, equal tags, whenever they were served. */
export function resultEtag(json: string): string {
  return `W/"${createHash('sha1').update(json).digest('base64url')}"`;
}

export class ResultCache {
  private readonly entries = new Map<string, CachedResult>();
  private epoch = 0;

  constructor(
    private readonly feed: Pick<ChangeFeed, 'listening' | 'subscribe'>,
    tables: readonly string[],
    private readonly maxEntries: number,
  ) {
    const watched = new Set(tables);
    feed.subscribe({
      change: (change) => {
        if (watched.has(change.table)) this.clear();
      },
      reset: () => this.clear(),
    });
  }

  get(key: string): CachedResult | undefined {
    return this.feed.listening ? this.entries.get(key) : undefined;
  }

  /** The current epoch, to hand back to `set` once the result has been computed. */
  begin(): number {
    return this.epoch;
  }

  set(key: string, json: string, since: number): CachedResult {
    const result = { json, etag: resultEtag(json) };
    if (since !== this.epoch || !this.feed.listening) return result;
    this.entries.set(key, result);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return result;
  }

  private clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }
}
