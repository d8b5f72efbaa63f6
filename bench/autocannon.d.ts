// The part of autocannon 9's programmatic API the benchmark uses (the package ships no types and
// @types/autocannon is not installed).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Sent in turn by every connection, from the first again after the last. */
      requests?: Request[];
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Worker threads that send the requests (0: the calling thread). */
      workers?: number;
      pipelining?: number;
      /** Seconds before a request counts as timed out. */
      timeout?: number;
      /** Replace every `[<id>]` in each request with an id of its own, generated per request. */
      idReplacement?: boolean;
      title?: string;
    }

    /** Summary of a histogram: latencies in ms, requests per second, bytes per second. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
      p99_9: number;
    }

    interface Result {
      title?: string;
      url: string;
      connections: number;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram & { totalCount: number };
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    /** The running benchmark: a promise of its result that can be stopped early. */
    interface Instance extends PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;

  export = autocannon;
}
