import type { CapWindow, LinkCounters } from '@state-divergence/protocol';
import { faultWindow, isNetworkFault, PUBLISHER, publisherFaults, rateText } from '../model/faults.js';
import type { JsonConfig, JsonRun } from './document.js';
import { worstP99 } from '../check/latency.js';
import { clocks, secondsText } from './time-axis.js';
import { duration, kib } from './units.js';

/**
 * A network fault in words (--partition, --loss, --delay): what the client's relay did to its
 * link, what QUIC did about it at the broker, how long the broker's writes to it blocked, what it
 * cost the consumer's p99 beside the healthy ones', and how long it heard nothing (its stale time).
 * The text report's lines and the HTML's rows read the same, from the --json document alone.
 */

type Consumer = JsonRun['consumers'][number];

/** Spans named in a stale line; the rest are counted. */
const SPANS_SHOWN = 3;

const direction = (c: LinkCounters): string => `${c.forwarded} forwarded, ${c.dropped} dropped`;

/** "its relay: to it 812 datagrams forwarded, 1530 dropped; from it 604 forwarded, 388 dropped" (down is broker to
 * client). */
function relayLine(run: JsonRun, client: string, whose = 'its'): string {
  const relay = run.relays[client];
  if (relay === undefined) return `${whose} relay did not report`;
  const held = Math.max(relay.up.maxHeld, relay.down.maxHeld);
  return (
    `${whose} relay: to it ${relay.down.forwarded} datagrams forwarded, ${relay.down.dropped} dropped; from it ` +
    `${direction(relay.up)}${held > 0 ? `; at most ${held} held at once` : ''}` +
    relay.caps.map((cap) => `; ${udpCapWords(cap)}`).join('')
  );
}

/**
 * A cap on a UDP link, as a bottleneck: "capped at 10 KB/s for 2 s: 20,900 B forwarded to it (at most
 * 21,500 B: the rate × the window + its bucket), 61 datagrams dropped at the full queue (82,350 B)".
 */
function udpCapWords(cap: CapWindow): string {
  const bound = Math.floor(cap.rateBytesPerSec * cap.seconds + cap.bucketBytes);
  return (
    `capped at ${rateText(cap.rateBytesPerSec)} for ${cap.seconds} s: ` +
    `${cap.forwardedBytes.down.toLocaleString('en-US')} B ` +
    `forwarded to it (at most ${bound.toLocaleString('en-US')} B: the rate × the window + its bucket), ` +
    `${cap.dropped.down} datagrams dropped at its full ${cap.queueBytes.toLocaleString('en-US')}-byte queue ` +
    `(${cap.droppedBytes.down.toLocaleString('en-US')} B), ${cap.dropped.up} from it`
  );
}

/** The broker's QUIC sending to it (quiche's counters); nothing where none were taken (no packet counted sent). */
function transportLine(run: JsonRun, name: string): string | null {
  const t = run.broker?.subscribers[name]?.transport;
  if (t === undefined || t.sent === 0) return null;
  return (
    `the broker's QUIC to it: ${t.sent} packets sent, ${t.lost} declared lost, ${t.retrans} retransmitted (` +
    `${kib(t.retransBytes)} resent)`
  );
}

/**
 * Its stale time, where it tracks it: "stale 1.3 s in 1 span (1.00-2.30 s): no frame from the broker
 * for over 750 ms". By its own clock: a frozen consumer counts its stall once thawed, so this says
 * what happened, not that it knew at the time. A consumer under a network fault that never went
 * stale says so; any other says nothing then (0 is the rule).
 */
export function staleLine(consumer: Consumer, staleAfterMs: number): string | null {
  const { staleMs, staleSpans } = consumer;
  if (staleMs === null) return null;
  if (staleMs === 0)
    return consumer.faults.some(isNetworkFault) ? 'never stale: it heard from the broker throughout' : null;
  const shown = staleSpans.slice(-SPANS_SHOWN).map(([from, to]) => `${from.toFixed(2)}-${secondsText(to)}`);
  const earlier = staleSpans.length > SPANS_SHOWN ? `${staleSpans.length - SPANS_SHOWN} earlier, ` : '';
  const spans =
    staleSpans.length === 0
      ? ''
      : ` in ${staleSpans.length} span${staleSpans.length === 1 ? '' : 's'} (${earlier}${shown.join(', ')})`;
  return `stale ${duration(staleMs)}${spans}: no frame from the broker for over ${staleAfterMs} ms`;
}

/**
 * The broker's writes to it that stayed pending 100 ms or more (blockedWrites) while its link was
 * faulted: "the broker's writes to it blocked 1.9 s during its fault (1 write, the longest 1.9 s)".
 * A write counts whole if it overlaps a fault window (it stays pending until the link lets it through).
 */
function blockedLine(consumer: Consumer, run: JsonRun): string | null {
  const windows = consumer.faults.filter(isNetworkFault);
  const { ofWall } = clocks(run);
  const blocked = (run.broker?.subscribers[consumer.name]?.blockedWrites ?? []).filter((w) =>
    windows.some((f) => ofWall(w.startedAt) < f.to && ofWall(w.startedAt + w.ms) > f.from),
  );
  if (blocked.length === 0) return null;
  const total = blocked.reduce((sum, w) => sum + w.ms, 0);
  const longest = Math.max(...blocked.map((w) => w.ms));
  const writes = `${blocked.length} write${blocked.length === 1 ? '' : 's'}`;
  return (
    `the broker's writes to it blocked ${duration(total)} during its fault${windows.length === 1 ? '' : 's'} (` +
    `${writes}, the longest ${duration(longest)})`
  );
}

/** Its publish-to-apply p99 beside the worst healthy consumer's: what the fault cost it (its catch-up included). */
function latencyLine(consumer: Consumer, run: JsonRun): string | null {
  const own = consumer.latency?.all?.p99;
  if (own === undefined) return null;
  const healthy = worstP99(run.consumers.filter((c) => !c.faulted).map((c) => c.latency?.all?.p99));
  return (
    `its publish-to-apply p99 over the run ${own} ms (its catch-up included)` +
    `${healthy === null ? '' : `; the healthy consumers' at most ${healthy} ms`}`
  );
}

/** A consumer's link, when it had a network fault: its relay, QUIC at the broker, the broker's blocked writes to it,
 * its p99 beside the healthy ones'. */
export function linkLines(consumer: Consumer, run: JsonRun): string[] {
  if (!consumer.faults.some(isNetworkFault)) return [];
  const lines = [
    relayLine(run, consumer.name),
    transportLine(run, consumer.name),
    blockedLine(consumer, run),
    latencyLine(consumer, run),
  ];
  return lines.filter((line): line is string => line !== null);
}

/** The text report's lines for a consumer: its link, and its stale time (when it tracks it). */
export function consumerNetworkLines(consumer: Consumer, run: JsonRun, config: JsonConfig): string[] {
  const stale = staleLine(consumer, config.staleAfterMs);
  return [...linkLines(consumer, run), ...(stale === null ? [] : [stale])];
}

/**
 * A publisher whose link was faulted: the fault, the time it waited on the broker, and its relay.
 * Its reconnects and time without a broker are the publisher's line of restart-text.ts (one line
 * for them, whatever cut it off); here only whether its connection lived through the fault.
 */
export function publisherNetworkLines(run: JsonRun, config: JsonConfig): string[] {
  const faults = publisherFaults(config.faults);
  if (faults.length === 0) return [];
  const p = run.publisher;
  const lived = p.reconnects === 0 ? '; its connection lived through it' : '';
  return [
    `publisher: ${faults.map(faultWindow).join(', ')}; it waited on the broker ${p.blockedMs} ms in all${lived}`,
    relayLine(run, PUBLISHER, "the publisher's"),
  ];
}
