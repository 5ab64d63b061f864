/** The fence choices of a fence-window rule (vehicles and drivers: `@/lib/pickers`). */
import { api } from '@/lib/api-client';
import type { PickerOption } from '@/lib/pickers';

/** The enterprise's fences as choices of a fence-window rule (the 100 newest: a rule names at most 100). */
export async function loadFenceOptions(): Promise<PickerOption[]> {
  const answer = await api.get('/api/v1/geofences', { params: { query: { page: 1, size: 100 } }, silent: true });
  return answer.list.map((f) => ({ value: f.id, label: f.name }));
}
