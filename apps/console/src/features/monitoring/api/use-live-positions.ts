import { useEffect, useMemo, useRef, useState } from 'react';
import { applyPosition } from '../components/live-positions';
import { openPositionStream, type StreamState } from './position-stream';
import { usePositions, type LatestPosition, type PositionsQuery } from './positions';

/** Stream updates reach the map at most this often (thousands of fixes a second would re-render too much). */
export const FLUSH_MS = 1000;
/** Offline needs no event: the clock alone turns a silent vehicle grey. */
const CLOCK_MS = 30_000;

/**
 * Every vehicle in reach with its latest fix: the snapshot, kept current by the
 * stream, refetched after each reconnect so nothing missed stays wrong.
 */
export function useLivePositions(query: PositionsQuery) {
  const snapshot = usePositions(query);
  const store = useRef(new Map<string, LatestPosition>());
  const [version, setVersion] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [streamState, setStreamState] = useState<StreamState>('connecting');
  const narrowed = (query.orgIds?.length ?? 0) > 0 || (query.statuses?.length ?? 0) > 0 || !!query.plateNumber;
  const { refetch } = snapshot;

  useEffect(() => {
    if (!snapshot.data) return;
    store.current = new Map(snapshot.data.list.map((p) => [p.vehicleId, p]));
    setVersion((v) => v + 1);
  }, [snapshot.data]);

  useEffect(() => {
    let dirty = false;
    let opens = 0;
    const stop = openPositionStream({
      onPosition: (p) => {
        if (applyPosition(store.current, p, !narrowed)) dirty = true;
      },
      onState: setStreamState,
      onOpen: () => {
        // The first open follows the snapshot just loaded; later ones fill what was missed.
        if (opens++ > 0) void refetch();
      },
    });
    const flush = setInterval(() => {
      if (!dirty) return;
      dirty = false;
      setVersion((v) => v + 1);
    }, FLUSH_MS);
    const clock = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => {
      stop();
      clearInterval(flush);
      clearInterval(clock);
    };
  }, [narrowed, refetch]);

  // eslint-disable-next-line react-hooks/exhaustive-deps
  const list = useMemo(() => [...store.current.values()], [version]);
  return { list, now, streamState, truncated: snapshot.data?.truncated ?? false, isLoading: snapshot.isLoading, error: snapshot.error, refetch };
}
