/**
 * Vehicle video (monitor, playback; as:risk:video): the vehicles with cameras,
 * a camera's recordings of a day, playback controls and the viewing audit
 * through the typed client; the live and playback streams are read by the
 * player (`components/mse-player.ts`) from the URLs built here.
 */
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { components, operations } from '@/lib/api/schema';

export type CameraVehicle = components['schemas']['CameraVehicleBody'];
export type VideoResource = components['schemas']['VideoResourceBody'];
export type VideoView = components['schemas']['VideoViewBody'];
export type StreamQuality = NonNullable<NonNullable<operations['video_live']['parameters']['query']>['stream']>;
export type PlaybackControl = components['schemas']['PlaybackControlForm'];
export type VideoViewQuery = NonNullable<operations['video_list_views']['parameters']['query']>;

/** How many vehicles the tree shows at once; the plate search narrows the rest. */
export const TREE_SIZE = 100;

export const VIDEO_KEY = ['risk', 'video'] as const;

/** The tree: vehicles with cameras whose plate contains `plateSearch`. */
export function useCameraVehicles(plateSearch: string) {
  return useQuery({
    queryKey: [...VIDEO_KEY, 'vehicles', plateSearch],
    queryFn: () => api.get('/api/v1/video/vehicles', { params: { query: { page: 1, size: TREE_SIZE, plateSearch: plateSearch || undefined } } }),
    placeholderData: keepPreviousData,
    refetchInterval: 60_000,
  });
}

/** One camera's recordings on a Beijing day (yyyy-MM-dd); asked only when `enabled`. */
export function useVideoResources(vehicleId: string | undefined, channel: number | undefined, day: string) {
  return useQuery({
    queryKey: [...VIDEO_KEY, 'resources', vehicleId, channel, day],
    queryFn: () =>
      api.get('/api/v1/video/vehicles/{vehicleId}/resources', {
        params: { path: { vehicleId: vehicleId ?? '' }, query: { channel, day } },
      }),
    enabled: !!vehicleId && !!channel && !!day,
    retry: false,
  });
}

export function useControlPlayback(vehicleId: string | undefined) {
  return useMutation({
    mutationFn: (body: PlaybackControl) =>
      api.post('/api/v1/video/vehicles/{vehicleId}/playback/control', { params: { path: { vehicleId: vehicleId ?? '' } }, body }),
  });
}

export function useVideoViews(query: VideoViewQuery, enabled: boolean) {
  return useQuery({
    queryKey: [...VIDEO_KEY, 'views', query],
    queryFn: () => api.get('/api/v1/video/views', { params: { query } }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

const base = (vehicleId: string) => `/api/v1/video/vehicles/${encodeURIComponent(vehicleId)}`;

/** The live stream of one camera (framed fMP4, see the player). */
export function liveUrl(vehicleId: string, channel: number, stream: StreamQuality): string {
  return `${base(vehicleId)}/live?${new URLSearchParams({ channel: String(channel), stream })}`;
}

/** A recording played back from `start` (RFC 3339) at `speed`. */
export function playbackUrl(vehicleId: string, channel: number, start: string, speed: number): string {
  return `${base(vehicleId)}/playback?${new URLSearchParams({ channel: String(channel), start, speed: String(speed) })}`;
}
