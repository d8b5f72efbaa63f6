// The context a shared evaluation runs with: the gateway's own access (each subscriber was admitted
// by the gate before it joined; events must not spend any caller's rate-limit tokens), and loaders
// renewed every second, since one evaluation lives for hours and a loader caches what it read.
import type { GatewayContext } from '../../context.js';

const LOADERS_TTL_MS = 1_000;

export function sharedEvaluationContext(make: (requestId: string) => GatewayContext): GatewayContext {
  const base = make('live');
  let loaders = base.loaders;
  let madeAt = Date.now();
  const context: GatewayContext = { ...base };
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
