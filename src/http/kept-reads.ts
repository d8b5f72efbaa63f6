// REST GET reads whose answer the published cache keeps, noted by the URL they were asked with, so
// the fast path (fast-path.ts) can find a kept answer from the raw request line alone. The REST
// router notes a URL only after routing and validating it and answering it from a kept result; the
// same URL routes and validates the same way again, so the note only says where that result is
// kept. The result itself stays in the published cache, which drops it on a change: a note whose
// result is gone is forgotten, and the URL goes the normal way until it is kept again.
//
// REST POST reads (the lists) are keyed by their body, not their URL: the REST router declares each
// such path with the function that keys a parsed body as the route does (its body schema, JSON
// limits and variables; undefined for a body the route would refuse), and the fast path looks the
// key up in the published cache itself.
import type { CachePart } from '../platform/cache/published-cache.js';
import type { PreparedAnswer } from '../platform/cache/prepared-answer.js';

export interface KeptRead {
  /** The REST entry's API id, path template and the dataset its path names (for access, metrics and the log). */
  apiId: string;
  route: string;
  datasetId: string | undefined;
  part: CachePart<PreparedAnswer>;
  key: string;
}

/** A REST POST read (a list) whose result the published cache may keep, declared by its path. */
export interface KeptPostRead {
  apiId: string;
  route: string;
  part: CachePart<PreparedAnswer>;
  /** The kept result's key for a parsed JSON body, or undefined when the route would refuse the body (or not keep its result). */
  keyOfBody(body: unknown): string | undefined;
}

export class KeptReads {
  private readonly urls = new Map<string, KeptRead>();
  private readonly posts = new Map<string, KeptPostRead>();
  /** The GET routes whose results may be kept, as path segments (`:name` matches any one segment). */
  private readonly getRoutes: string[][] = [];

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

  /** A GET route (a path template such as `/v2/datasets/read/:dataset_id`) whose results the published cache may keep. */
  declareGet(path: string): void {
    this.getRoutes.push(path.split('/'));
  }

  /**
   * Whether a GET of `path` (no query string) may be answered from a kept result once read: its
   * concurrent first reads then wait for one of them (fast-path.ts). Matched as the route's
   * segments, exactly; a path express would still route (other case, trailing slash) only misses
   * that wait.
   */
  mayKeepGet(path: string): boolean {
    const segments = path.split('/');
    return this.getRoutes.some((route) => route.length === segments.length && route.every((part, index) => (part.startsWith(':') ? segments[index] !== '' : part === segments[index])));
  }

  declarePost(path: string, read: KeptPostRead): void {
    this.posts.set(path, read);
  }

  /** The POST read declared at exactly `url` (no query string), if any. */
  postAt(url: string): KeptPostRead | undefined {
    return this.posts.get(url);
  }
}
