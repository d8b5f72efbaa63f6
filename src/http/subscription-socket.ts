// One graphql-ws subscription's deliveries, written straight to its WebSocket: the shared result's
// serialised bytes (src/modules/live/multiplexer.ts) framed as this subscription's `next` message,
// so thousands of subscribers of one evaluation cost a copy each, not a JSON.stringify each. Frames
// not yet handed to the kernel are this subscriber's queue: one more than `capacity` drops it.
// graphql-ws still runs the protocol (subscribe, complete, errors): it reads this object as the
// operation's stream, which yields nothing and ends when the evaluation or the subscriber does.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { LiveSubscriber, Membership, SharedResult } from '../modules/live/index.js';
import type { SubscriptionOutcome } from '../telemetry/metrics.js';
import type { SubscriptionObservation } from './use-observability.js';

const NEXT_CLOSING = Buffer.from('}');
const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** The TCP socket under a WebSocket (ws keeps it in a field of its own; it offers no cork). */
function transportOf(socket: WebSocket): Duplex | undefined {
  return (socket as unknown as { _socket?: Duplex })._socket;
}

// Sockets corked during this turn of the event loop, uncorked together when it ends: the frames one
// delivery writes to a socket (its subscribers of one evaluation) leave in one system call, not one each.
const corked = new Set<Duplex>();
let uncorkScheduled = false;

function uncorkAll(): void {
  uncorkScheduled = false;
  for (const socket of corked) socket.uncork();
  corked.clear();
}

function corkUntilTurnEnds(socket: Duplex): void {
  if (corked.has(socket)) return;
  socket.cork();
  corked.add(socket);
  if (!uncorkScheduled) {
    uncorkScheduled = true;
    setImmediate(uncorkAll);
  }
}

export class SocketSubscription implements LiveSubscriber, AsyncIterableIterator<never> {
  private readonly opening: Buffer;
  private unflushed = 0;
  private ended = false;
  private membership: Membership | undefined;
  private wake: ((result: IteratorReturnResult<undefined>) => void) | undefined;

  constructor(
    private readonly socket: WebSocket,
    id: string,
    private readonly capacity: number,
    private readonly onOverflow: () => void,
    private readonly observation: Pick<SubscriptionObservation, 'sent' | 'ended'>,
  ) {
    this.opening = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  }

  /** Its place in the shared evaluation, left when this subscription ends. */
  joined(membership: Membership): void {
    if (this.ended) membership.leave();
    else this.membership = membership;
  }

  deliver(result: SharedResult): void {
    if (this.ended || this.socket.readyState !== this.socket.OPEN) return;
    if (this.unflushed >= this.capacity) {
      this.end('dropped');
      this.onOverflow();
      return;
    }
    this.unflushed += 1;
    this.observation.sent();
    const transport = transportOf(this.socket);
    if (transport) corkUntilTurnEnds(transport);
    this.socket.send(Buffer.concat([this.opening, result.json, NEXT_CLOSING]), { binary: false }, this.flushed);
  }

  private readonly flushed = (): void => {
    this.unflushed -= 1;
  };

  /** Ends it: its evaluation ended (completed, failed), it fell behind (dropped) or its client left (closed). */
  end(outcome: SubscriptionOutcome = 'completed'): void {
    if (this.ended) return;
    this.ended = true;
    this.observation.ended(outcome);
    this.membership?.leave();
    this.membership = undefined;
    this.wake?.(DONE);
    this.wake = undefined;
  }

  next(): Promise<IteratorResult<never>> {
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve) => (this.wake = resolve));
  }

  return(): Promise<IteratorResult<never>> {
    this.end('closed');
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<never> {
    return this;
  }
}
