/**
 * Sensitive values (console spec §3, §6): the server masks them; revealing one is a
 * call that writes the sensitive-view audit, and only a user holding
 * `as:sensitive:view` may make it.
 */
import { api } from './api-client';
import type { components } from './api/schema';

export type RevealRequest = components['schemas']['RevealRequest'];
export type RevealAnswer = components['schemas']['RevealBody'];

export const SENSITIVE_VIEW_PERMISSION = 'as:sensitive:view';

/** Whose value is revealed (the gateway's `subjectKind`). */
export const SubjectKind = {
  Member: 1,
  ApprovalApplicant: 2,
  FeedbackContact: 3,
} as const;

/** One reveal: one call, one audit row. */
export function revealSensitive(request: RevealRequest): Promise<RevealAnswer> {
  return api.post('/api/v1/sensitive/reveal', { body: request });
}
