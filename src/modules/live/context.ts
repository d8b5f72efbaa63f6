// The context a shared evaluation runs with: its subscribers' access (they share one access key, see
// multiplexer.ts) without rate limits (each subscriber paid when the gate admitted it; events must not
// spend its tokens), and loaders renewed every second, since one evaluation lives for hours and a
// loader caches what it read (and renewed before each reading of a live query).
import type { GatewayContext, LiveQuerySupport } from '../../context.js';

const LOADERS_TTL_MS = 1_000;

export function sharedEvaluationContext(make: (requestId: string) => GatewayContext, liveQueries: Omit<LiveQuerySupport, 'renewLoaders'>): GatewayContext {
  const base = make('live');
  let loaders = base.loaders;
  let madeAt = Date.now();
  const context: GatewayContext = {
    ...base,
    liveQueries: {
      ...liveQueries,
      // Each reading of a live query reads afresh: nothing a loader kept from the last one is reused.
      renewLoaders: () => {
        loaders = make('live').loaders;
        madeAt = Date.now();
      },
    },
  };
  Object.defineProperty(context, 'loaders', {
    enumerable: true,
    get() {
      if (Date.now() - madeAt > LOADERS_TTL_MS) {
        loaders = make('live').loaders;
        madeAt = Date.now();
      }
      return loaders;
    },
  });
  return context;
}
